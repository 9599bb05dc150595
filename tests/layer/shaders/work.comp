#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer Scratch { uint data[]; };
void main() { data[gl_GlobalInvocationID.x % 64u] = gl_GlobalInvocationID.x; }
