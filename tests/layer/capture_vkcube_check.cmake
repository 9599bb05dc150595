# Frame capture on vkcube under Xvfb (docs/layer.md "Frame capture"): frame 10 captured to
# TCAP while VK_LAYER_KHRONOS_validation watches (no message allowed), then the capture checked
# by the capture test application (1 draw, 12 triangles, culling, depth, both attachments).
#   cmake -DXVFB_RUN=... -DVKCUBE=... -DAPP=layer_capture_app -DTCAP=file -DWORKDIR=dir -P capture_vkcube_check.cmake
if(NOT XVFB_RUN OR NOT VKCUBE)
  message(FATAL_ERROR "xvfb-run and vkcube are needed (tools/setup-deps.sh installs xvfb and vulkan-tools)")
endif()
file(REMOVE ${TCAP})
set(ENV{TESSERA_LAYER_CAPTURE} 10)
set(ENV{TESSERA_LAYER_CAPTURE_PATH} ${TCAP})
set(ENV{VK_INSTANCE_LAYERS} VK_LAYER_KHRONOS_validation)
execute_process(COMMAND ${XVFB_RUN} -a ${VKCUBE} --c 15 --validate WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vkcube failed: ${rc}")
endif()
if("${out}${err}" MATCHES "VUID|: VALIDATION|Validation Error|Validation Warning|Validation Performance")
  message(FATAL_ERROR "VK_LAYER_KHRONOS_validation reported messages with capture on")
endif()
if(NOT EXISTS ${TCAP})
  message(FATAL_ERROR "no capture file ${TCAP}")
endif()
unset(ENV{VK_INSTANCE_LAYERS})
execute_process(COMMAND ${APP} vkcube ${TCAP} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "capture check failed: ${rc}")
endif()
