#version 450
// Frame capture's test draws: known object-space vertices, a push-constant matrix, instances
// side by side; the capture must hold exactly the CPU's transform of these.
layout(location = 0) in vec3 position;
layout(push_constant) uniform Transform { mat4 m; } transform;
void main() { gl_Position = transform.m * vec4(position + vec3(0.25 * float(gl_InstanceIndex), 0.0, 0.0), 1.0); }
