#version 330 core
// Colormaps a scalar field (R32F texture, one texel per cell). Cells that no thread computed (outside the
// launch's coverage) are hatched; NaN or infinite cells are drawn magenta so a broken kernel is visible.
in vec2 v_uv;
out vec4 frag;
uniform samplerBuffer u_field; // R32F texels, row-major nx x ny (a GL buffer that CUDA writes)
uniform sampler2D u_colormap;  // RGBA8, 256 x 1
uniform vec2 u_range;          // value mapped to the colormap's ends
uniform ivec2 u_size;          // nx, ny
uniform ivec2 u_covered;       // cells with x >= covered.x or y >= covered.y were not computed
uniform int u_grid_lines;      // 0: none; else draw block boundaries every u_block cells
uniform ivec2 u_block;
void main() {
  // Row 0 of the field is drawn at the top.
  vec2 uv = vec2(v_uv.x, 1.0 - v_uv.y);
  ivec2 cell = clamp(ivec2(floor(uv * vec2(u_size))), ivec2(0), u_size - 1);
  float v = texelFetch(u_field, cell.y * u_size.x + cell.x).r;
  vec3 color;
  if (isnan(v) || isinf(v)) {
    color = vec3(1.0, 0.0, 1.0);
  } else {
    float t = clamp((v - u_range.x) / max(u_range.y - u_range.x, 1e-20), 0.0, 1.0);
    color = texture(u_colormap, vec2(t * 255.0 / 256.0 + 0.5 / 256.0, 0.5)).rgb;
  }
  if (cell.x >= u_covered.x || cell.y >= u_covered.y) {
    // Diagonal hatching in screen space: visible at any zoom.
    float stripe = mod(gl_FragCoord.x + gl_FragCoord.y, 12.0);
    color = stripe < 6.0 ? mix(color, vec3(0.0), 0.75) : mix(color, vec3(1.0, 0.1, 0.6), 0.6);
  }
  if (u_grid_lines != 0) {
    vec2 f = fract(uv * vec2(u_size) / vec2(u_block));
    vec2 w = fwidth(uv * vec2(u_size) / vec2(u_block));
    if (f.x < w.x || f.y < w.y) color = mix(color, vec3(1.0), 0.5);
  }
  frag = vec4(color, 1.0);
}
