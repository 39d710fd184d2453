// heat-tutorial: the tutorials' heat step, written in CUDA C++ the way they wrote it in Numba:
//
//     i, j = cuda.grid(2)          # i: the row, j: the column
//     u_new[i, j] = u[i, j] + r * (u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1] - 4 * u[i, j])
//
// cuda.grid(2) returns (x, y), and x is the FASTEST-varying thread index: the 32 threads of a warp have 32
// consecutive x. Here x picks the ROW, so a warp's threads read 32 different rows, nx floats apart: 32
// separate memory transactions per load where one would do. The result is right; the speed is not.
//
// Your turn: take the column from x and the row from y (swap the roles of x and y below), recompile, and
// watch the step time drop. The lab launches grid (ceil(nx/bx), ceil(ny/by)), which has nx threads along x
// and ny along y; with the rows along x the threads do not match the field unless it is square, so each
// thread strides over the grid (the loops) to cover every cell of any field: one more thing a fix removes.
extern "C" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r,
                                     float boundary_temp, int fixed_boundary) {
  // row    (cuda.grid(2)[0]: x, the fastest index)
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < ny; i += gridDim.x * blockDim.x) {
    // column (cuda.grid(2)[1]: y)
    for (int j = blockIdx.y * blockDim.y + threadIdx.y; j < nx; j += gridDim.y * blockDim.y) {
      const long long k = (long long)i * nx + j;
      const float c = in[k];
      const float edge = fixed_boundary ? boundary_temp : c;  // outside the field
      const float west = j > 0 ? in[k - 1] : edge;
      const float east = j + 1 < nx ? in[k + 1] : edge;
      const float north = i > 0 ? in[k - nx] : edge;
      const float south = i + 1 < ny ? in[k + nx] : edge;
      out[k] = c + r * ((west + east) + (north + south) - 4.0f * c);
    }
  }
}
