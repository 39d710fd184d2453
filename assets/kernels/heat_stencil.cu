// heat: one explicit step of the heat equation, u' = u + r * (west + east + north + south - 4u).
// The field is nx x ny floats, row-major: cell (x, y) is in[y * nx + x].
// The lab launches one thread per cell: block (bx, by) from the heat panel, grid (ceil(nx/bx), ceil(ny/by)).
//
// Coalesced: x (the fastest-varying thread index) picks the COLUMN, so the 32 threads of a warp read 32
// neighbouring floats of one row: one or two memory transactions per load instead of 32.
extern "C" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r,
                                     float boundary_temp, int fixed_boundary) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // column
  const int y = blockIdx.y * blockDim.y + threadIdx.y;  // row
  if (x >= nx || y >= ny) return;
  const long long i = (long long)y * nx + x;
  const float c = in[i];
  // Outside the field: the fixed edge temperature, or (insulated) the cell itself, so no heat flows out.
  const float edge = fixed_boundary ? boundary_temp : c;
  const float w = x > 0 ? in[i - 1] : edge;
  const float e = x + 1 < nx ? in[i + 1] : edge;
  const float n = y > 0 ? in[i - nx] : edge;
  const float s = y + 1 < ny ? in[i + nx] : edge;
  out[i] = c + r * ((w + e) + (n + s) - 4.0f * c);
}
