#version 330 core
// Monte Carlo sample paths as line strips: one float (the price) per vertex, straight from the buffer CUDA
// wrote (or the host filled). Vertex j of the buffer is step j % u_len of path j / u_len; glMultiDrawArrays
// keeps gl_VertexID as the buffer index, so x comes from it. The colour follows the path's terminal price,
// read from the same buffer as a texture.
layout(location = 0) in float a_price;
uniform int u_len;                 // steps + 1
uniform vec2 u_range;              // prices at the bottom and top of the image
uniform samplerBuffer u_prices;    // the same buffer, for the terminal price
out vec4 v_colour;

vec3 ramp(float t) {
  // Blue (low S_T) through teal and yellow to red (high S_T).
  vec3 a = vec3(0.25, 0.45, 0.95), b = vec3(0.2, 0.85, 0.75), c = vec3(0.98, 0.85, 0.3), d = vec3(0.95, 0.35, 0.3);
  t = clamp(t, 0.0, 1.0) * 3.0;
  if (t < 1.0) return mix(a, b, t);
  if (t < 2.0) return mix(b, c, t - 1.0);
  return mix(c, d, t - 2.0);
}

void main() {
  int k = gl_VertexID % u_len;
  int path = gl_VertexID / u_len;
  float s_t = texelFetch(u_prices, path * u_len + u_len - 1).r;
  float span = max(u_range.y - u_range.x, 1e-6);
  float x = float(k) / float(max(u_len - 1, 1));
  float y = (a_price - u_range.x) / span;
  v_colour = vec4(ramp((s_t - u_range.x) / span), 0.55);
  gl_Position = vec4(x * 2.0 - 1.0, y * 2.0 - 1.0, 0.0, 1.0);
}
