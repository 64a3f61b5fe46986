# The two helpers every floe target is built with, so all targets share flags and layout.

set(FLOE_WARNINGS -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
# Clang checks the locking that util/mutex.h's annotations declare (FLOE_GUARDED_BY and
# friends): a guarded member touched without its mutex fails the build.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  list(APPEND FLOE_WARNINGS -Wthread-safety -Werror=thread-safety)
endif()

# floe_add_library(NAME SOURCES... [LINK libs...]): a static library of floe's own code.
function(floe_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
                                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_options(${name} PRIVATE ${FLOE_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK})
  if(FLOE_PCH)
    target_precompile_headers(${name} PRIVATE
      <arrow/api.h> <arrow/result.h> <arrow/status.h> <nlohmann/json.hpp>
      <parquet/arrow/writer.h> <parquet/arrow/reader.h>
      <string> <vector> <map> <memory> <optional>)
  endif()
endfunction()

# floe_add_test(NAME SOURCES...): one GoogleTest binary, registered with CTest in shards.
function(floe_add_test name)
  add_executable(${name} ${ARGN})
  target_compile_options(${name} PRIVATE ${FLOE_WARNINGS})
  target_link_libraries(${name} PRIVATE floe floe_testing GTest::gtest GTest::gtest_main GTest::gmock)
  if(FLOE_PCH)
    target_precompile_headers(${name} PRIVATE
      <arrow/api.h> <nlohmann/json.hpp> <gtest/gtest.h> <string> <vector> <memory>)
  endif()
  # Registered as FLOE_TEST_SHARDS gtest shards, so that `ctest -j` runs them side by side.
  if(NOT FLOE_TEST_SHARDS)
    set(FLOE_TEST_SHARDS 2)
  endif()
  math(EXPR last "${FLOE_TEST_SHARDS} - 1")
  foreach(shard RANGE ${last})
    add_test(NAME ${name}_${shard} COMMAND ${name})
    set_tests_properties(${name}_${shard} PROPERTIES TIMEOUT 600
      ENVIRONMENT "FLOE_TEST_TMPDIR=${CMAKE_BINARY_DIR}/test-tmp;GTEST_TOTAL_SHARDS=${FLOE_TEST_SHARDS};GTEST_SHARD_INDEX=${shard}")
  endforeach()
endfunction()
