# Where the tests find the shared test data (DESIGN.md: never copied into the repo).
# In order: $ERMAK_SHARED_DATA; ../shared/data beside the source tree; and, for a clone
# of a local checkout (`git clone . /tmp/x`), ../shared/data beside the checkout it was
# cloned from — such a clone has no data beside it, and its tests would otherwise fail.
# Sets ERMAK_SHARED_DATA (a path, possibly missing: then a warning says so).
function(ermak_find_shared_data)
  if(DEFINED ENV{ERMAK_SHARED_DATA})
    set(ERMAK_SHARED_DATA "$ENV{ERMAK_SHARED_DATA}" PARENT_SCOPE)
    return()
  endif()
  get_filename_component(beside "${CMAKE_SOURCE_DIR}/../shared/data" ABSOLUTE)
  set(found "${beside}")
  if(NOT IS_DIRECTORY "${beside}")
    find_package(Git QUIET)
    if(GIT_FOUND)
      execute_process(COMMAND ${GIT_EXECUTABLE} -C "${CMAKE_SOURCE_DIR}" config --get remote.origin.url
                      OUTPUT_VARIABLE origin OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      # Only a local path (no scheme, no host:path) can have data beside it.
      if(origin AND NOT origin MATCHES "^[A-Za-z][A-Za-z0-9+.-]*://" AND NOT origin MATCHES "^[^/]+:")
        string(REGEX REPLACE "^file://" "" origin "${origin}")
        get_filename_component(origin "${origin}" ABSOLUTE BASE_DIR "${CMAKE_SOURCE_DIR}")
        get_filename_component(from_origin "${origin}/../shared/data" ABSOLUTE)
        if(IS_DIRECTORY "${from_origin}")
          message(STATUS "shared test data: ${from_origin} (beside ${origin}, which this checkout was cloned from)")
          set(found "${from_origin}")
        endif()
      endif()
    endif()
  endif()
  if(NOT IS_DIRECTORY "${found}")
    message(WARNING "No shared test data at ${found}: the tests that read it will fail. "
                    "Set ERMAK_SHARED_DATA to the data directory and configure again.")
  endif()
  set(ERMAK_SHARED_DATA "${found}" PARENT_SCOPE)
endfunction()
