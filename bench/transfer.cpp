// xstack_transfer: how fast rendered text travels to rank 0 through xstack's
// Comm (MPI_Ssend of a 2-word header, then the piece), the path TraceWriting
// uses for every chunk a rank other than 0 renders.
//
//   mpirun -np 2 build/bin/xstack_transfer [--mb 512] [--piece-kb 4096]
//
// Every rank other than 0 sends --mb MiB in pieces of --piece-kb KiB; rank 0
// receives them in rank order (as it does when it writes files in order) and
// prints one line: pieces, bytes, seconds, MB/s.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "xstack/comm/Comm.h"

int main(int argc, char** argv) {
  uint64_t mb = 512, pieceKb = 4096;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--mb")
      mb = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--piece-kb")
      pieceKb = std::strtoull(argv[i + 1], nullptr, 10);
  }
  auto comm = xstack::makeWorldComm(&argc, &argv);
  if (comm->size() < 2) {
    std::fprintf(stderr, "xstack_transfer: run under mpirun -np 2 (or more)\n");
    return 2;
  }
  const uint64_t piece = pieceKb << 10, total = mb << 20;
  const uint64_t pieces = (total + piece - 1) / piece;
  const int tag = 77;
  comm->barrier();
  auto t0 = std::chrono::steady_clock::now();
  uint64_t got = 0;
  if (comm->rank() == 0) {
    for (int r = 1; r < comm->size(); ++r)
      for (uint64_t i = 0; i < pieces; ++i) got += comm->recv(r, tag).data.size();
  } else {
    std::string text(piece, 'x');
    for (uint64_t i = 0; i < pieces; ++i) comm->send(0, tag, 1, text);
  }
  comm->barrier();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (comm->rank() == 0)
    std::printf(
        "transfer: senders=%d pieces=%llu piece_bytes=%llu bytes=%llu seconds=%.4f mb_per_s=%.1f\n",
        comm->size() - 1, static_cast<unsigned long long>(pieces * (comm->size() - 1)),
        static_cast<unsigned long long>(piece), static_cast<unsigned long long>(got), s,
        got / 1e6 / s);
  return 0;
}
