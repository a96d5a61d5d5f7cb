"""``python -m sciz eval -i field.npy -r 1e-3``: see sciz._eval."""

import sys

from ._eval import main

if __name__ == "__main__":
    sys.exit(main())
