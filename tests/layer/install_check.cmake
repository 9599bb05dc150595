# `cmake --install` of the layer into PREFIX, then vkcube with XDG_DATA_HOME=PREFIX/share: the
# installed manifest (library path relative to itself) must load the installed library.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --component tessera_layer --prefix ${PREFIX}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
file(GLOB manifest ${PREFIX}/share/vulkan/implicit_layer.d/VkLayer_TESSERA_stats.json)
if(NOT manifest)
  message(FATAL_ERROR "no installed manifest under ${PREFIX}/share/vulkan/implicit_layer.d")
endif()
set(ENV{XDG_DATA_HOME} ${PREFIX}/share)
set(FRAMES 3)
set(EXPECT_FRAMES 0-2)
set(QUERY_INTERVAL 10)  # default settings
include(${CMAKE_CURRENT_LIST_DIR}/vkcube_check.cmake)
