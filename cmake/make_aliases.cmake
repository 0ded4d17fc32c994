# Makes a symbolic link to mpiscope for every legacy program name the suites register (IMB-MPI1,
# com, osu_bw, ...), as `mpiscope --aliases` lists them, so that the list lives in the registry
# alone. Run with -DMPISCOPE=<the executable> -DDIR=<the folder of the links>.
# A sanitizer build must not fail here on the leak report of the libraries it loads.
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
execute_process(COMMAND "${MPISCOPE}" --aliases OUTPUT_VARIABLE aliases RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${MPISCOPE} --aliases failed (${status})")
endif()
string(REPLACE "\n" ";" aliases "${aliases}")
foreach(alias IN LISTS aliases)
  if(alias)
    file(CREATE_LINK mpiscope "${DIR}/${alias}" SYMBOLIC)
  endif()
endforeach()
