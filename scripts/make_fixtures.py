#!/usr/bin/env python3
"""Cut small pieces of the real fields in ../shared/data into tests/fixtures/ (committed, a
few hundred KB in all) so the suite has real data on a fresh clone. Re-run to regenerate."""
import array, os, sys

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
DST = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")

# (source file, source dims, typecode, cut: list of (start, stop) per axis, fixture name)
CUTS = [
    ("isabel_TCf25_downsampled5xy_100x100x100.f32", (100, 100, 100), "f", [(40, 60), (25, 75), (25, 75)], "isabel_cut"),
    ("ferret_ocean_atlas_temp_nanland_12x19x90x180.f32", (12, 19, 90, 180), "f", [(0, 1), (0, 4), (20, 65), (40, 130)], "ocean_nanland_cut"),
    ("cosmo_halo_particles_x_32314.f32", (32314,), "f", [(0, 32314)], "cosmo_halo_x"),
    ("geocat_mpas_surface_pressure_163842.f64", (163842,), "d", [(0, 20011)], "mpas_pressure_cut"),
    ("ferret_etopo20_relief_540x1081.f32", (540, 1081), "f", [(200, 301), (400, 601)], "etopo_cut"),
    ("s3d_chi_scalar_dissipation_chunk_50x50x50.f32", (50, 50, 50), "f", [(0, 25), (0, 25), (0, 25)], "s3d_chi_cut"),
    ("tem_4dstem_diffraction_5x5x256x256.f32", (5, 5, 256, 256), "f", [(0, 2), (0, 2), (96, 160), (96, 160)], "tem_4d_cut"),
    ("md_adk_protein_traj_x_98x3341.f32", (98, 3341), "f", [(0, 20), (0, 3341)], "md_traj_cut"),
]


def cut(data, dims, ranges):
    strides = [1] * len(dims)
    for k in range(len(dims) - 2, -1, -1):
        strides[k] = strides[k + 1] * dims[k + 1]
    out = array.array(data.typecode)

    def rec(axis, base):
        lo, hi = ranges[axis]
        if axis == len(dims) - 1:
            out.extend(data[base + lo: base + hi])
            return
        for i in range(lo, hi):
            rec(axis + 1, base + i * strides[axis])

    rec(0, 0)
    return out


def main():
    os.makedirs(DST, exist_ok=True)
    for src, dims, tc, ranges, name in CUTS:
        a = array.array(tc)
        with open(os.path.join(SRC, src), "rb") as f:
            a.frombytes(f.read())
        assert sys.byteorder == "little"
        c = cut(a, dims, ranges)
        shape = "x".join(str(hi - lo) for lo, hi in ranges)
        ext = "f32" if tc == "f" else "f64"
        path = os.path.join(DST, f"{name}_{shape}.{ext}")
        with open(path, "wb") as f:
            c.tofile(f)
        print(path, len(c))


if __name__ == "__main__":
    main()
