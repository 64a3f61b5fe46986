# Every third-party dependency of floe, found in one place. Versions are pinned by the Debian
# release (scripts/bootstrap.sh) and by requirements.txt (the pyarrow wheel).

# Arrow C++ and Parquet: an installed Arrow if CMake finds one, else the pinned pyarrow wheel.
find_package(Arrow CONFIG QUIET)
find_package(Parquet CONFIG QUIET)
find_package(ArrowCompute CONFIG QUIET)
if(Arrow_FOUND AND Parquet_FOUND AND ArrowCompute_FOUND)
  message(STATUS "floe: Arrow ${Arrow_VERSION} from an installed Arrow")
  add_library(floe_arrow INTERFACE)
  target_link_libraries(floe_arrow INTERFACE Arrow::arrow_shared Parquet::parquet_shared
                                             ArrowCompute::arrow_compute_shared)
  if(FLOE_WITH_S3)
    find_package(ArrowS3 CONFIG QUIET)
    if(ArrowS3_FOUND)
      target_link_libraries(floe_arrow INTERFACE ArrowS3::arrow_s3_shared)
    else()
      message(STATUS "floe: the installed Arrow has no S3 support: building without S3")
      set(FLOE_WITH_S3 OFF CACHE BOOL "" FORCE)
    endif()
  endif()
else()
  if(NOT EXISTS "${FLOE_PYTHON}")
    message(FATAL_ERROR "floe: no installed Arrow and no Python at ${FLOE_PYTHON}; "
                        "run scripts/bootstrap.sh first")
  endif()
  execute_process(
    COMMAND "${FLOE_PYTHON}" -c
            "import pyarrow; print(pyarrow.get_include()); print(pyarrow.get_library_dirs()[0]); print(pyarrow.__version__)"
    OUTPUT_VARIABLE _floe_pyarrow OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _floe_rc)
  if(NOT _floe_rc EQUAL 0)
    message(FATAL_ERROR "floe: ${FLOE_PYTHON} cannot import pyarrow; run scripts/bootstrap.sh")
  endif()
  string(REPLACE "\n" ";" _floe_pyarrow "${_floe_pyarrow}")
  list(GET _floe_pyarrow 0 FLOE_ARROW_INCLUDE_DIR)
  list(GET _floe_pyarrow 1 FLOE_ARROW_LIBRARY_DIR)
  list(GET _floe_pyarrow 2 FLOE_ARROW_VERSION)
  message(STATUS "floe: Arrow ${FLOE_ARROW_VERSION} from the pyarrow wheel in ${FLOE_ARROW_LIBRARY_DIR}")
  add_library(floe_arrow INTERFACE)
  set(_floe_libs arrow parquet arrow_compute)
  if(FLOE_WITH_S3)
    # The wheel builds Arrow's S3 file system (with the AWS SDK inside) as its own library.
    list(APPEND _floe_libs arrow_s3)
  endif()
  foreach(_floe_lib ${_floe_libs})
    file(GLOB _floe_candidates "${FLOE_ARROW_LIBRARY_DIR}/lib${_floe_lib}.so.[0-9]*")
    list(SORT _floe_candidates)
    list(LENGTH _floe_candidates _floe_count)
    if(_floe_count EQUAL 0)
      message(FATAL_ERROR "floe: lib${_floe_lib}.so.N not found in ${FLOE_ARROW_LIBRARY_DIR}")
    endif()
    list(GET _floe_candidates 0 _floe_location)
    add_library(floe_wheel_${_floe_lib} SHARED IMPORTED)
    set_target_properties(floe_wheel_${_floe_lib} PROPERTIES
      IMPORTED_LOCATION "${_floe_location}" IMPORTED_NO_SONAME OFF)
    target_link_libraries(floe_arrow INTERFACE floe_wheel_${_floe_lib})
  endforeach()
  # The wheel's headers are third-party code: include them as system headers so our warnings
  # stay ours.
  target_include_directories(floe_arrow SYSTEM INTERFACE "${FLOE_ARROW_INCLUDE_DIR}")
  target_link_options(floe_arrow INTERFACE "LINKER:-rpath,${FLOE_ARROW_LIBRARY_DIR}")
endif()

find_package(nlohmann_json 3.10 REQUIRED)
find_package(SQLite3 REQUIRED)
# libpq for the PostgreSQL catalog (Debian: libpq-dev), with FLOE_WITH_POSTGRES.
if(FLOE_WITH_POSTGRES)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)
endif()
find_package(ZLIB REQUIRED)
if(FLOE_WITH_REST OR FLOE_WITH_S3)
  # The REST catalog client; the S3 requests floe signs itself (conditional PUT,
  # DeleteObjects).
  find_package(CURL REQUIRED)
endif()
find_package(CLI11 CONFIG REQUIRED)
find_package(Threads REQUIRED)
if(FLOE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
