# The HUD on vkcube under Xvfb (docs/layer.md, "The HUD"): vkcube runs FRAMES frames with its
# own validation (--validate: VK_LAYER_KHRONOS_validation and a messenger printing every
# message), a screenshot of the display is taken while it runs and must show the HUD panel in
# the window's top-left corner (vkcube's window is at 100,100 on the bare Xvfb screen; the region holds the panel's text lines), and vkcube's output must hold no validation message.
#   cmake -DXVFB_RUN=... -DVKCUBE=... -DSHOT=tessera_layer_x11_screenshot -DPNG=out.png
#         -DFRAMES=N -DWORKDIR=dir [-DREGION=X0,Y0,X1,Y1] -P hud_check.cmake
if(NOT XVFB_RUN OR NOT VKCUBE)
  message(FATAL_ERROR "xvfb-run and vkcube are needed (tools/setup-deps.sh installs xvfb and vulkan-tools)")
endif()
file(REMOVE ${PNG})
# The region that must show the panel (screen pixels X0,Y0,X1,Y1): by default the lines below
# the frame-time graphs of the default panels.
if(NOT REGION)
  set(REGION 112,185,330,238)
endif()
string(REPLACE "," " " region "${REGION}")
# vkcube in the background; screenshots every second (lavapipe starts slowly on a loaded
# machine) until one shows the panel, at most 10; then vkcube left to finish its frames.
set(script "${VKCUBE} --validate --width 400 --height 300 --c ${FRAMES} > ${PNG}.log 2>&1 & pid=$!; shot=1; for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1; ${SHOT} ${PNG} --expect-hud ${region} && { shot=0; break; }; done; wait $pid; cube=$?; cat ${PNG}.log; echo shot=$shot cube=$cube; [ $shot = 0 ] && [ $cube = 0 ]")
execute_process(COMMAND ${XVFB_RUN} -a -s "-screen 0 640x480x24" sh -c "${script}" WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "HUD check failed: ${rc}")
endif()
if(NOT EXISTS ${PNG})
  message(FATAL_ERROR "no screenshot ${PNG}")
endif()
string(REGEX MATCH "VUID|Validation (Error|Warning)|UNASSIGNED" found "${out}${err}")
if(found)
  message(FATAL_ERROR "validation messages with the HUD on (${found})")
endif()
