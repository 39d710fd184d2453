// Exercise 5: broadcasting. out[r][c] = col[r] + row[c]; one 16 x 16 block, x = column, y = row.
extern "C" __global__ void outer_add(const float* col, const float* row, float* out, int rows, int cols) {
  const int c = threadIdx.x, r = threadIdx.y;
  // TODO: which vector has one value per row?
  if (r < rows && c < cols) out[r * cols + c] = col[c] + row[r];
}
