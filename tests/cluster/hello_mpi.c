/* Tiny MPI program for the cluster smoke test: every rank reports its rank, hostname and what
 * its /local holds, after an allreduce that proves the ranks talk to each other. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  char marker[256] = "none";
  FILE* f = fopen("/local/marker", "r");
  if (f) {
    if (fgets(marker, sizeof marker, f)) marker[strcspn(marker, "\n")] = 0;
    fclose(f);
  }
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d on %s local %s sum %d\n", rank, size, host, marker, sum);
  MPI_Finalize();
  return sum == size * (size - 1) / 2 ? 0 : 1;
}
