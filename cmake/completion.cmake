# Writes one shell's completion script: cmake -DGPUR=<gpur> -DSHELL_NAME=<bash|zsh|fish>
# -DOUT=<file> [-DEMULATOR=<runner>] -P completion.cmake. The script goes to a
# temporary name first, so a failed run leaves no partial file behind.
foreach(var GPUR SHELL_NAME OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "completion.cmake: ${var} is not set")
  endif()
endforeach()
execute_process(COMMAND ${EMULATOR} ${GPUR} --completions ${SHELL_NAME}
                OUTPUT_FILE ${OUT}.tmp
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${GPUR} --completions ${SHELL_NAME} failed (${rc})")
endif()
file(RENAME ${OUT}.tmp ${OUT})
