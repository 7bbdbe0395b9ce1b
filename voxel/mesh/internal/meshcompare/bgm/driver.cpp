// The C++ half of cmd/mesher-compare.sh: times binary-greedy-meshing's
// mesh() on the volumes meshcompare -dump wrote. mesher.h is not part of
// this repository: the script copies it into a temporary include directory.
//
//   driver DIR SAMPLES   prints "bgm NAME BEST MEDIAN BLOCKS FACES" per volume
//
// BEST and MEDIAN are CPU ns per meshed block (62³) over the samples, each
// sample at least 4 ms of repeated mesh() calls on the same input, as the
// Go side does. The opaque mask is built outside the timing: bgm expects
// it kept with the world data, as our chunks keep their row masks. FACES
// are the unit faces (w·h of every quad) per "bgm face:kind".
#define BM_IMPLEMENTATION
#include "mesher.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <string>
#include <vector>

static long long threadCPU() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: driver DIR SAMPLES\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int samples = atoi(argv[2]);
  std::ifstream list(dir + "/volumes");
  std::string name;
  std::vector<uint8_t> voxels(CS_P3);

  MeshData md;
  md.opaqueMask = new uint64_t[CS_P2];
  md.faceMasks = new uint64_t[CS_2 * 6];
  md.forwardMerged = new uint8_t[CS_2]();
  md.rightMerged = new uint8_t[CS]();
  md.maxVertices = 1 << 21; // more than the checkerboard's 3·62³ quads: never grows
  md.vertices = new std::vector<uint64_t>(md.maxVertices);

  while (list >> name) {
    std::ifstream in(dir + "/" + name + ".vox", std::ios::binary);
    if (!in.read((char*)voxels.data(), CS_P3)) {
      fprintf(stderr, "driver: cannot read %s\n", name.c_str());
      return 1;
    }
    // opaqueMask[y·64 + x] bit z: voxel z + 64·x + 64²·y is not air
    std::fill(md.opaqueMask, md.opaqueMask + CS_P2, 0);
    for (int y = 0; y < CS_P; y++)
      for (int x = 0; x < CS_P; x++)
        for (int z = 0; z < CS_P; z++)
          if (voxels[z + CS_P * x + CS_P2 * y]) md.opaqueMask[y * CS_P + x] |= 1ull << z;

    mesh(voxels.data(), md); // warm
    long long t0 = threadCPU();
    mesh(voxels.data(), md);
    long long one = std::max(1LL, threadCPU() - t0);
    const long long reps = std::max(1LL, 4000000LL / one);
    std::vector<double> ns(samples);
    for (int i = 0; i < samples; i++) {
      t0 = threadCPU();
      for (long long r = 0; r < reps; r++) mesh(voxels.data(), md);
      ns[i] = double(threadCPU() - t0) / double(reps * CS * CS * CS);
    }
    std::sort(ns.begin(), ns.end());

    std::map<std::pair<int, int>, long long> faces;
    for (int f = 0; f < 6; f++)
      for (int i = 0; i < md.faceVertexLength[f]; i++) {
        uint64_t q = (*md.vertices)[md.faceVertexBegin[f] + i];
        faces[{f, int(q >> 32)}] += ((q >> 18) & 63) * ((q >> 24) & 63);
      }
    std::string fs;
    for (auto& [k, n] : faces) {
      if (!fs.empty()) fs += ",";
      fs += std::to_string(k.first) + ":" + std::to_string(k.second) + "=" + std::to_string(n);
    }
    printf("bgm %s %.5f %.5f %d %s\n", name.c_str(), ns[0], ns[samples / 2], CS * CS * CS,
           fs.empty() ? "none" : fs.c_str());
    fflush(stdout);
  }
  return 0;
}
