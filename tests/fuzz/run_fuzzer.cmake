# ctest fuzz.<target>: runs one libFuzzer target. -DFUZZER -DWORK -DCORPUS -DSECONDS [-DSEEDS]
# SECONDS 0 replays the committed corpus (CORPUS) once; otherwise it fuzzes for SECONDS with
# new inputs kept in WORK/corpus, starting from WORK/corpus, CORPUS and SEEDS. A finding (crash,
# sanitizer report, timeout, out of memory) fails the test; its input is in WORK/findings/ and
# the log in WORK/log.txt names it (docs/fuzzing.md: reproduce, fix, add it to CORPUS).
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/findings)
set(options -timeout=30 -rss_limit_mb=3072 -print_final_stats=1 -artifact_prefix=${WORK}/findings/)
if(SECONDS EQUAL 0)
  set(log ${WORK}/corpus_log.txt)
  execute_process(COMMAND ${FUZZER} ${options} -runs=0 ${CORPUS}
                  RESULT_VARIABLE status OUTPUT_FILE ${log} ERROR_FILE ${log})
else()
  set(log ${WORK}/log.txt)
  execute_process(COMMAND ${FUZZER} ${options} -max_total_time=${SECONDS} ${WORK}/corpus ${CORPUS} ${SEEDS}
                  RESULT_VARIABLE status OUTPUT_FILE ${log} ERROR_FILE ${log})
endif()
file(STRINGS ${log} stats REGEX "^stat::(number_of_executed_units|peak_rss_mb)|^(Done|INFO: seed corpus)")
foreach(line IN LISTS stats)
  message("${line}")
endforeach()
if(NOT status EQUAL 0)
  file(READ ${log} text)
  string(LENGTH "${text}" length)
  if(length GREATER 6000)
    math(EXPR from "${length} - 6000")
    string(SUBSTRING "${text}" ${from} 6000 text)
  endif()
  message(FATAL_ERROR "${FUZZER} found a problem (exit ${status}); input in ${WORK}/findings/, log ${log}:\n${text}")
endif()
