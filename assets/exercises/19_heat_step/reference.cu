// Exercise 19, reference.
extern "C" __global__ void heat_step(const float* in, float* out, int nx, int ny, float r, float boundary_temp) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const float c = in[y * nx + x];
  const float l = x > 0 ? in[y * nx + x - 1] : boundary_temp;
  const float rt = x + 1 < nx ? in[y * nx + x + 1] : boundary_temp;
  const float u = y > 0 ? in[(y - 1) * nx + x] : boundary_temp;
  const float d = y + 1 < ny ? in[(y + 1) * nx + x] : boundary_temp;
  out[y * nx + x] = c + r * (l + rt + u + d - 4.0f * c);
}
