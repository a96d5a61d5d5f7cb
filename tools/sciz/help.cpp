#include "help.hpp"

#include <sciz/sciz.hpp>

#include "core/container.hpp"

// The build may pass the project version; the fallback keeps a bare compile working.
#ifndef SCIZ_VERSION
#define SCIZ_VERSION "0.1.0"
#endif

namespace sciz::cli {

namespace {

std::string pipeline_list() {
  std::string s;
  for (const auto& p : pipelines()) s += (s.empty() ? "" : ", ") + p;
  return s;
}

const char* kUsage =
    "usage:\n"
    "  sciz compress   -i IN -o OUT [-t f32|f64] [-d DIMS] (-r REL | -a ABS) [-p PIPELINE]\n"
    "                  [--device cpu|cuda|auto] [--chunk-mb N] [--gpu-memory SIZE] [--devices LIST]\n"
    "                  [--radius N] [--lossless S | --stages L] [--delta-chain C] [--szx-block N] [--interp-*] [-q]\n"
    "  sciz decompress -i IN.sciz -o OUT [--slice A:B] [--max-output SIZE] [--device cpu|cuda|auto]\n"
    "                  [--gpu-memory SIZE] [--devices LIST] [-q]\n"
    "  sciz info       -i IN.sciz [--json]\n"
    "  sciz eval       -i IN [-o OUT.sciz] [-t f32|f64] [-d DIMS] (-r REL | -a ABS) [-p PIPELINE]\n"
    "                  [--device cpu|cuda|auto] [--radius N] [--lossless S | --stages L] [--delta-chain C] [--szx-block N] [--interp-*] [--runs N] [--json] [-q]\n"
    "  sciz refactor   -i IN -o OUT.sciz [-t f32|f64] [-d DIMS] [--planes-per-group N] [--device cpu|cuda|auto]\n"
    "                  [--json] [-q]\n"
    "  sciz retrieve   -i IN.sciz -o OUT (-r REL | -a ABS) [--state S] [--json] [-q]\n"
    "  sciz retrieve   --qoi vtotal|magnitude|linear -i A.sciz,B.sciz[,...] -o A,B[,...] --tol REL\n"
    "                  [--method cp|ma|mape] [--weights W1,W2,...] [--json] [-q]\n"
    "  sciz --help | sciz COMMAND --help | sciz --version\n";

std::string input_text() {
  return "input:\n"
         "  A .npy file (recognised by its magic bytes; little-endian <f4 or <f8, C order) carries\n"
         "  its own type and shape: -t and -d are then optional and, if given, must match it.\n"
         "  Any other file is raw little-endian values and needs -t and -d; its size must be\n"
         "  exactly product(DIMS) x 4 (f32) or x 8 (f64) bytes.\n"
         "  DIMS lists 1 to 4 sizes slowest to fastest varying, like a numpy shape: -d 100x500x500\n"
         "  is an array of shape (100, 500, 500) whose last index varies fastest in memory.\n";
}

std::string gpu_options() {
  return "      --gpu-memory SIZE  GPU memory sciz may hold per device, e.g. 2G or 512M (default:\n"
         "                       what is free); a field larger than that streams through in chunks\n"
         "      --devices LIST   CUDA devices to spread chunks over: all, or e.g. 0,1 (default: the\n"
         "                       current one); the stream is the same whatever the list\n";
}

std::string field_options() {
  return "  -i, --input PATH     input field (raw or .npy)\n"
         "  -t, --type T         f32 or f64 (float32/float64 also accepted)\n"
         "  -d, --dims DIMS      e.g. 100x500x500, slowest to fastest varying\n"
         "  -r, --rel REL        error bound relative to the value range (max - min of the\n"
         "                       finite values): every point is kept within REL x range\n"
         "  -a, --abs ABS        absolute error bound: every point is kept within ABS\n"
         "  -p, --pipeline NAME  " + pipeline_list() + " (default lorenzo)\n"
         "      --device D       cpu, cuda or auto (default auto: cuda when a GPU is usable)\n"
         "      --radius N       lorenzo quantisation radius, 1..32768 (default 512)\n"
         "      --lossless S     lorenzo or interp stage for the quant codes: auto (default: the\n"
         "                       smallest, sized exactly), huffman, rle, rle+huffman,\n"
         "                       zrle+huffman (runs of the zero-residual code only), or bitpack\n"
         "      --stages L       lorenzo or interp stage list for the quant codes instead, e.g.\n"
         "                       huffman,rre4,tcms8,rze1: at most one codes stage (huffman, rle,\n"
         "                       rle+huffman, zrle+huffman, bitpack), first, then byte stages tcms,\n"
         "                       bit, rre, rze in widths 1, 2, 4, 8 (tcms1 ... rze8); or a named list:\n"
         "                       interp-cr (huffman,rre4,tcms8,rze1), interp-tp (tcms1,bit1,rre1).\n"
         "                       Pipelines interp-cr and interp-tp code with those lists; interp\n"
         "                       (default) keeps per chunk the smallest of the best codes stage,\n"
         "                       it followed by rze1, interp-cr and interp-tp\n"
         "      --delta-chain C  delta chain order: auto (default: serpentine where rows hold at\n"
         "                       most 128 values, else linear), linear (fastest on the GPU), or\n"
         "                       serpentine (odd rows walked backwards: smaller streams on\n"
         "                       short rows, e.g. x1.2-1.6 on rows of 38-100 values)\n"
         "      --szx-block N    szx values per block, a multiple of 32 in 32..4096 (default\n"
         "                       128; the GPU's fastest; larger blocks store fewer means)\n"
         "      --interp-spline S  interp spline of every level: auto (default: tuned per\n"
         "                       level on sampled blocks), linear or cubic\n"
         "      --interp-scheme S  interp scheme of every level: auto (default: tuned), zyx or\n"
         "                       xyz (dimension by dimension, that axis order), md (cuSZ-Hi's\n"
         "                       multi-dimensional averages) or cross (Lorenzo stencils)\n"
         "      --interp-alpha A interp level bounds eb / min(A^(l-1), B), l = 1 the finest:\n"
         "                       0 (default) tunes A and B, 1 keeps every level at eb\n"
         "      --interp-beta B  the cap of that tightening, >= 1 (default 4)\n"
         "      --interp-lorenzo on|off  interp codes a chunk with the lorenzo predictor\n"
         "                       where its tuner estimates that smaller (default on)\n"
         "      --chunk-mb N     MiB of input per chunk, cut along the slowest axis (default 128;\n"
         "                       0: the whole field in one chunk). Chunks are what streams through\n"
         "                       memory, a GPU or several, and what --slice reads; smaller ones give\n"
         "                       finer random access, larger ones a faster GPU\n" +
         gpu_options();
}

const char* kExit =
    "exit status: 0 success, 1 data or stream error, 2 usage error,\n"
    "             3 eval measured an error above the bound\n";

}  // namespace

std::string version_text() {
  std::string s = "sciz " SCIZ_VERSION " (stream format " + std::to_string(kFormatVersion) + ", CUDA ";
#if defined(SCIZ_HAVE_CUDA)
  s += "built in";
#else
  s += "not built";
#endif
  return s + ")\n";
}

std::string help_text(std::optional<Command> cmd) {
  if (!cmd || *cmd == Command::help || *cmd == Command::version) {
    return "sciz " SCIZ_VERSION ": error-bounded lossy compression of float32/float64 fields (1 to 4 dims)\n\n" +
           std::string(kUsage) +
           "\ncommands:\n"
           "  compress    field -> .sciz stream; every finite value kept within the bound,\n"
           "              NaN/Inf kept bit for bit\n"
           "  decompress  .sciz stream -> raw values, same type and exact size as the input\n"
           "  info        describe a stream: header, bound, pipeline parameters, sections\n"
           "  eval        compress + decompress + compare: ratio, errors, PSNR, SSIM, speed\n"
           "  refactor    field -> refactored file (mdr): retrievable later at any bound\n"
           "  retrieve    refactored file -> raw values within a bound, reading only the bytes it\n"
           "              needs (and, with --state, only what an earlier retrieval lacked)\n\n" +
           input_text() + "\n" + kExit + "\nRun 'sciz COMMAND --help' for the options of one command.\n";
  }
  switch (*cmd) {
    case Command::compress:
      return "usage: sciz compress -i IN -o OUT [-t f32|f64] [-d DIMS] (-r REL | -a ABS) [-p PIPELINE]\n"
             "                     [--device cpu|cuda|auto] [--chunk-mb N] [--gpu-memory SIZE] [--devices LIST]\n"
             "                     [--radius N] [--lossless S | --stages L] [--delta-chain C] [--szx-block N] [--interp-*] [-q]\n\n"
             "Compresses a field into a .sciz stream. Exactly one of -r and -a is required.\n"
             "Works a chunk at a time: memory stays at a few chunks whatever the file's size (with\n"
             "-r, one extra pass over the input finds its value range first). On a terminal, long\n"
             "runs show chunks done, GB/s and the time left.\n\n"
             "options:\n" +
             field_options() +
             "  -o, --output PATH    the stream (written to PATH.tmp, renamed when complete)\n"
             "  -q, --quiet          no summary or progress on stderr\n\n" +
             input_text() + "\n" + kExit;
    case Command::decompress:
      return "usage: sciz decompress -i IN.sciz -o OUT [--slice A:B] [--max-output SIZE] [--device cpu|cuda|auto]\n"
             "                       [--gpu-memory SIZE] [--devices LIST] [-q]\n\n"
             "Decodes a stream into raw little-endian values of the original type, exactly\n"
             "product(dims) x sizeof(type) bytes (never padded, no header); 'sciz info' tells\n"
             "the type and dims. Works a chunk at a time: memory stays at a few chunks whatever\n"
             "the stream's size.\n\n"
             "options:\n"
             "  -i, --input PATH     the .sciz stream\n"
             "  -o, --output PATH    raw output (written to PATH.tmp, renamed when complete)\n"
             "      --slice A:B      only rows A to B-1 of the slowest axis (A: or :B leave a side\n"
             "                       open), reading and checking only the chunks that hold them;\n"
             "                       e.g. --slice 10:20 of a 100x500x500 field writes 10x500x500\n"
             "      --max-output SIZE  refuse a stream whose output (or a chunk decoded to serve\n"
             "                       --slice) would exceed SIZE, e.g. 8G, before writing anything\n"
             "                       (default 1T; 0 or none: no limit). A few bytes of stream can\n"
             "                       declare any field: set it for files from untrusted sources\n"
             "      --device D       cpu, cuda or auto (default auto)\n" +
             gpu_options() +
             "  -q, --quiet          no progress on stderr\n\n" +
             std::string(kExit);
    case Command::info:
      return "usage: sciz info -i IN.sciz [--json]\n\n"
             "Describes a stream: format version, type, dims, error bound, value range, pipeline,\n"
             "its chunks (rows, offset, length, pipeline) and the first chunk's parameters and\n"
             "sections (id, offset, length, checksum). All checksums are verified, a chunk at a time.\n"
             "Of a refactored file ('sciz refactor'): type, dims, levels, segments and the range of\n"
             "bounds it can be retrieved at, every segment verified.\n\n"
             "options:\n"
             "  -i, --input PATH     the .sciz stream\n"
             "      --json           one JSON object instead of a table\n\n" +
             std::string(kExit);
    case Command::eval:
      return "usage: sciz eval -i IN [-o OUT.sciz] [-t f32|f64] [-d DIMS] (-r REL | -a ABS) [-p PIPELINE]\n"
             "                 [--device cpu|cuda|auto] [--radius N] [--lossless S | --stages L] [--delta-chain C] [--szx-block N] [--interp-*] [--runs N] [--json] [-q]\n\n"
             "Compresses and decompresses on the chosen device, compares the result with the\n"
             "input and reports: ratio, bit rate, max abs error (and / eb), whether the bound held\n"
             "(max abs error <= resolved eb and every NaN/Inf back exactly), PSNR, NRMSE, SSIM and\n"
             "throughput (original bytes / median wall time of the API call, GB = 1e9 bytes).\n"
             "Exits with 3 when the bound did not hold.\n\n"
             "options:\n" +
             field_options() +
             "  -o, --output PATH    also keep the stream\n"
             "      --runs N         time N compressions and N decompressions, report the median\n"
             "                       and the first call (default 5 up to 64 MiB of input, else 1)\n"
             "      --json           one JSON object instead of a table (non-finite numbers,\n"
             "                       e.g. the PSNR of an exact reconstruction, are null)\n"
             "  -q, --quiet          no progress on stderr\n\n" +
             input_text() + "\n" + kExit;
    case Command::refactor:
      return "usage: sciz refactor -i IN -o OUT.sciz [-t f32|f64] [-d DIMS] [--planes-per-group N]\n"
             "                     [--device cpu|cuda|auto] [--json] [-q]\n\n"
             "Refactors a field once into one file of separately readable segments (a multilevel\n"
             "decomposition, bitplanes of every level, each group of planes coded on its own, an index\n"
             "at the head; docs/MDR.md), from which 'sciz retrieve' reads any bound later. The file\n"
             "holds the field near-losslessly; a retrieval reads only a prefix of it.\n\n"
             "options:\n"
             "  -i, --input PATH     input field (raw or .npy)\n"
             "  -t, --type T         f32 or f64 (float32/float64 also accepted)\n"
             "  -d, --dims DIMS      e.g. 100x500x500, slowest to fastest varying\n"
             "  -o, --output PATH    the refactored file (written to PATH.tmp, renamed when complete)\n"
             "      --planes-per-group N  bitplanes per segment, 1..32 (f32) or 1..52 (f64); default 1:\n"
             "                       the finest choice of what to read (the paper's 4 reads up to 16x\n"
             "                       more precision than asked for)\n"
             "      --device D       cpu, cuda or auto (default cpu). cuda decomposes and quantizes on\n"
             "                       the GPU and codes the groups on the host; the file is the same\n"
             "      --json           one JSON object on stdout instead of the summary line\n"
             "  -q, --quiet          no summary on stderr\n\n" +
             input_text() + "\n" + kExit;
    case Command::retrieve:
      return "usage: sciz retrieve -i IN.sciz -o OUT (-r REL | -a ABS) [--state S] [--json] [-q]\n"
             "       sciz retrieve --qoi vtotal|magnitude|linear -i A.sciz,B.sciz[,...] -o A,B[,...] --tol REL\n"
             "                     [--method cp|ma|mape] [--weights W1,W2,...] [--json] [-q]\n\n"
             "Reads a refactored file's header, then only the segments the bound needs (one\n"
             "contiguous range), and writes raw little-endian values of the original type and size.\n"
             "Reports the bound it guarantees (every finite point of OUT lies within it of the\n"
             "original; NaN/Inf come back exactly) and the bytes it read. A bound below the finest\n"
             "the file holds is an error naming that finest bound.\n\n"
             "options:\n"
             "  -i, --input PATH     the refactored file ('sciz refactor')\n"
             "  -o, --output PATH    raw output (written to PATH.tmp, renamed when complete)\n"
             "  -r, --rel REL        bound relative to the value range of the original field\n"
             "  -a, --abs ABS        absolute bound\n"
             "      --state S        continue from the retrieval that wrote S (if S exists) and\n"
             "                       write the new state there: a tighter bound reads only the\n"
             "                       segments S lacks; the result equals a fresh retrieval bit for bit.\n"
             "                       S holds the segments read so far, as read (compressed)\n"
             "      --qoi Q          retrieve several refactored fields of one shape (-i and -o are\n"
             "                       comma lists) until a quantity of them is within --tol: vtotal\n"
             "                       (sum of squares), magnitude (its square root) or linear (sum of\n"
             "                       --weights x field). The bound on the quantity's error is proven\n"
             "                       at every point from the retrieved values\n"
             "      --tol REL        tolerance relative to the quantity's range (with --qoi)\n"
             "      --method M       how the fields' bounds are refined (with --qoi): mape (default),\n"
             "                       ma (one more step of every field at a time: fewest bytes, most\n"
             "                       iterations) or cp (halve at the worst point: fewest iterations)\n"
             "      --weights LIST   the linear combination's weights, one per field\n"
             "      --json           one JSON object instead of a table\n"
             "  -q, --quiet          no report\n\n" +
             std::string(kExit);
    default:
      return help_text(std::nullopt);
  }
}

}  // namespace sciz::cli
