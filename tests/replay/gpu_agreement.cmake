# Agreement with the GPU (docs/replay.md): a capture the layer wrote on lavapipe (tests/layer)
# replayed by `tessera replay`; the replayed depth buffer's coverage must equal the captured
# depth attachment's except on at most MAX_MISMATCH of the pixels (edge pixels, where the two
# rasterizers' rules may differ), and depths covered by both must agree within the captured
# tolerance (capture.depth_agreement.tolerance: 1e-6 for float depth, one step in the format's
# units for D16, plus the depth slope / 512 for 4x and 8x captures, docs/replay.md) on all but
# MAX_BEYOND pixels (default 0).
#   cmake -DTESSERA=... -DTCAP=file -DSTATS=out.json -DMAX_MISMATCH=0.01 [-DMAX_BEYOND=N] -P gpu_agreement.cmake
if(NOT EXISTS ${TCAP})
  message(FATAL_ERROR "no capture ${TCAP} (the layer's capture test writes it)")
endif()
execute_process(COMMAND ${TESSERA} replay ${TCAP} --frame 0 --stats ${STATS} --draws ${STATS}.draws.csv
                        -o ${STATS}.png -q
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tessera replay failed: ${rc}")
endif()
file(READ ${STATS} json)
string(JSON replayed GET "${json}" capture draws replayed)
string(JSON agreement ERROR_VARIABLE no_agreement GET "${json}" capture depth_agreement)
if(no_agreement)
  message(FATAL_ERROR "no depth agreement in ${STATS}: the capture has no depth attachment read back at the pass's samples")
endif()
string(JSON pixels GET "${agreement}" pixels)
string(JSON both GET "${agreement}" covered_both)
string(JSON replay_only GET "${agreement}" covered_replay_only)
string(JSON capture_only GET "${agreement}" covered_capture_only)
string(JSON fraction GET "${agreement}" mismatch_fraction)
string(JSON beyond GET "${agreement}" beyond_tolerance)
string(JSON max_diff GET "${agreement}" max_abs_difference)
string(JSON tolerance GET "${agreement}" tolerance)
string(JSON equal GET "${agreement}" equal_in_format)
string(JSON max_steps GET "${agreement}" max_format_steps)
if(NOT DEFINED MAX_BEYOND)
  set(MAX_BEYOND 0)
endif()
message("${TCAP}: ${replayed} draws replayed; ${pixels} pixels: covered by both ${both}, replay only ${replay_only}, "
        "capture only ${capture_only} (mismatch fraction ${fraction}); depth: max |difference| ${max_diff}, "
        "${beyond} beyond the tolerance ${tolerance}, ${equal} equal in the format (max ${max_steps} UNORM steps)")
if(NOT replayed GREATER 0)
  message(FATAL_ERROR "nothing replayed")
endif()
if(NOT both GREATER 0)
  message(FATAL_ERROR "no pixel covered by both: the replay and the GPU do not overlap")
endif()
if(fraction GREATER MAX_MISMATCH)
  message(FATAL_ERROR "coverage differs on a fraction ${fraction} of the pixels (allowed ${MAX_MISMATCH})")
endif()
if(beyond GREATER MAX_BEYOND)
  message(FATAL_ERROR "${beyond} pixels covered by both differ in depth by more than ${tolerance} (allowed ${MAX_BEYOND})")
endif()
message("ok")
