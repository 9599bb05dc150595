# Replay of a multisampled capture against what the GPU drew (docs/replay.md "Agreement with the
# GPU"): `tessera replay TCAP --stats` and then
#   - per pixel, the samples Tessera covers equal the captured 4x colour attachment's covered
#     samples (capture.coverage_agreement.pixels_differ == 0, same sample totals);
#   - where the capture has depth, the pixels Tessera covers equal those the GPU covered, and
#     their depths (sample 0) agree within capture.depth_agreement.tolerance: the format's
#     resolution plus the depth slope times half a subpixel step (Tessera interpolates depth
#     over the snapped vertices, lavapipe over the float ones; Vulkan allows both);
#   - the colour unit on the replayed capture gives the layer's `msaa` record of the same frame
#     (JSONL written by the same run, frame FRAME): tiles per state and stored bytes identical.
#   cmake -DTESSERA=tessera -DTCAP=file -DJSONL=file -DFRAME=n -DOUT=stats.json [-DPARTIAL=1] -P capture_msaa_replay_check.cmake
# PARTIAL=1: the frame must have partly covered (edge) pixels, so the check sees real edges.
execute_process(COMMAND ${TESSERA} replay ${TCAP} --stats ${OUT} -o ${OUT}.png RESULT_VARIABLE rc OUTPUT_VARIABLE o
                ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tessera replay failed (${rc}): ${o}${e}")
endif()
file(READ ${OUT} stats)
function(stat out)
  string(JSON v ERROR_VARIABLE err GET "${stats}" ${ARGN})
  if(err)
    message(FATAL_ERROR "stats: ${ARGN}: ${err}")
  endif()
  set(${out} ${v} PARENT_SCOPE)
endfunction()
function(expect_equal what a b)
  message("${what}: ${a} vs ${b}")
  if(NOT "${a}" STREQUAL "${b}")
    message(FATAL_ERROR "${what} differ: ${a} vs ${b}")
  endif()
endfunction()

stat(differ capture coverage_agreement pixels_differ)
stat(pixels capture coverage_agreement pixels)
stat(partial capture coverage_agreement pixels_partial)
stat(s_replay capture coverage_agreement samples_replay)
stat(s_capture capture coverage_agreement samples_capture)
message("coverage: ${differ} of ${pixels} pixels differ, ${partial} partly covered by the GPU")
expect_equal("pixels whose covered samples differ" ${differ} 0)
expect_equal("covered samples (replay, capture)" ${s_replay} ${s_capture})
if(s_capture EQUAL 0)
  message(FATAL_ERROR "nothing covered: the check would see nothing")
endif()
if(PARTIAL AND partial EQUAL 0)
  message(FATAL_ERROR "no partly covered pixel: the frame has no edges to compare")
endif()
string(JSON has_depth ERROR_VARIABLE no_depth GET "${stats}" capture depth_agreement)
if(NOT no_depth)
  stat(only_r capture depth_agreement covered_replay_only)
  stat(only_c capture depth_agreement covered_capture_only)
  stat(maxd capture depth_agreement max_abs_difference)
  stat(both capture depth_agreement covered_both)
  stat(beyond capture depth_agreement beyond_tolerance)
  stat(tol capture depth_agreement tolerance)
  stat(slope capture depth_agreement max_depth_slope)
  stat(ratio capture depth_agreement max_difference_over_tolerance)
  message("depth: max |replay - GPU| ${maxd}, tolerance ${tol} (steepest slope ${slope} per pixel), "
          "worst difference / its pixel's tolerance ${ratio}")
  expect_equal("pixels covered in depth by the replay only" ${only_r} 0)
  expect_equal("pixels covered in depth by the GPU only" ${only_c} 0)
  # Depth within the format's resolution plus the snapping allowance (docs/replay.md): Tessera's
  # plane through the snapped vertices against lavapipe's through the float ones.
  expect_equal("pixels whose depth differs beyond the tolerance" ${beyond} 0)
  if(both EQUAL 0)
    message(FATAL_ERROR "no pixel covered in depth by both: the depth check would see nothing")
  endif()
endif()

# The layer's msaa record of the frame.
file(STRINGS ${JSONL} lines)
set(record "")
foreach(line IN LISTS lines)
  string(JSON f ERROR_VARIABLE err GET "${line}" frame)
  if(NOT err AND f EQUAL FRAME)
    string(JSON record GET "${line}" msaa)
  endif()
endforeach()
if(record STREQUAL "" OR record STREQUAL "null")
  message(FATAL_ERROR "no msaa record for frame ${FRAME} in ${JSONL}")
endif()
string(JSON images GET "${record}" images)
expect_equal("images in the msaa record" ${images} 1)
string(JSON states LENGTH "${record}" tiles_by_state)
math(EXPR last "${states} - 1")
foreach(i RANGE ${last})
  string(JSON name MEMBER "${record}" tiles_by_state ${i})
  string(JSON layer_n GET "${record}" tiles_by_state ${name})
  stat(replay_n color tiles ${name})
  expect_equal("tiles ${name} (layer, replay)" ${layer_n} ${replay_n})
endforeach()
string(JSON layer_tiles GET "${record}" tiles)
stat(replay_tiles color tiles total)
expect_equal("tiles (layer, replay)" ${layer_tiles} ${replay_tiles})
string(JSON layer_bytes GET "${record}" stored_bytes)
stat(replay_bytes color bytes total)
expect_equal("stored bytes (layer, replay)" ${layer_bytes} ${replay_bytes})
string(JSON layer_unc GET "${record}" uncompressed_bytes)
stat(replay_unc color baseline uncompressed_bytes)
expect_equal("uncompressed bytes (layer, replay)" ${layer_unc} ${replay_unc})
