// Exercise 19: one heat step, 5-point stencil, neighbours outside the field hold boundary_temp.
extern "C" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r, float boundary_temp) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const float c = in[y * nx + x];
  // TODO: at the field's edges these neighbours do not exist.
  const float l = in[y * nx + x - 1], rt = in[y * nx + x + 1];
  const float u = in[(y - 1) * nx + x], d = in[(y + 1) * nx + x];
  out[y * nx + x] = c + r * (l + rt + u + d - 4.0f * c);
}
