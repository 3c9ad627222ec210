# fitscale_embed(TARGET_VAR SYMBOL FILE): generates a .cpp defining
#   extern const std::string_view SYMBOL;  (namespace fitscale::embedded)
# holding FILE's bytes, and appends the generated source to TARGET_VAR.
function(fitscale_embed out_var symbol file)
  set(gen "${CMAKE_BINARY_DIR}/embedded/${symbol}.cpp")
  add_custom_command(
    OUTPUT "${gen}"
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${gen} -DSYMBOL=${symbol}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake"
    DEPENDS "${file}" "${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake"
    COMMENT "Embedding ${file} as fitscale::embedded::${symbol}")
  set(${out_var} ${${out_var}} "${gen}" PARENT_SCOPE)
endfunction()
