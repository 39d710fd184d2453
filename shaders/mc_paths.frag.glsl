#version 330 core
// Monte Carlo sample paths: the colour the vertex shader chose, blended so dense bundles read as brighter.
in vec4 v_colour;
out vec4 o_colour;
void main() { o_colour = v_colour; }
