# ctest fuzz.build: configures (once) and builds the clang fuzz build, tests/fuzz/clang.
# -DSOURCE -DBUILD -DCXX -DCC -DGENERATOR [-DLAUNCHER (ccache, as the main build uses)]
if(NOT EXISTS ${BUILD}/CMakeCache.txt)
  set(launcher)
  if(LAUNCHER)
    set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -G ${GENERATOR}
                          -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${CC} ${launcher}
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    file(REMOVE ${BUILD}/CMakeCache.txt)
    message(FATAL_ERROR "configuring the fuzz build in ${BUILD} failed")
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building the fuzz targets in ${BUILD} failed")
endif()
