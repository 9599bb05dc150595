# The layer library exports exactly the three loader entry points (layer/tessera_stats.map),
# although it links the whole static tessera library: nm lists every defined dynamic symbol.
# cmake -DNM=... -DLIBRARY=... -P exports_check.cmake
execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIBRARY}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(exported)
foreach(line IN LISTS lines)
  # "ADDRESS TYPE NAME"; version nodes (type A) are not symbols.
  if(line MATCHES "^[0-9a-fA-F]+ ([A-Za-z]) (.+)$" AND NOT CMAKE_MATCH_1 STREQUAL "A")
    list(APPEND exported ${CMAKE_MATCH_2})
  endif()
endforeach()
list(SORT exported)
set(want vkGetDeviceProcAddr vkGetInstanceProcAddr vkNegotiateLoaderLayerInterfaceVersion)
if(NOT exported STREQUAL want)
  message(FATAL_ERROR "exported: '${exported}', want exactly '${want}'")
endif()
message(STATUS "exports: ${exported}")
