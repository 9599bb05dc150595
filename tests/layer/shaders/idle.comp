#version 450
// Groups of 4 invocations that do nothing: compute work the pipeline statistics still count.
layout(local_size_x = 4) in;
void main() {}
