# cpcore_interface's source, generated from entry.h by interface.py (the interface's
# description: the structs' fields, kinds, offsets and sizes, the entry points' parameter
# kinds, the constants) into ``out`` whenever either changes. The Python module and
# engine.wasm both carry it.
if(NOT Python_EXECUTABLE)
    find_package(Python 3.10 COMPONENTS Interpreter REQUIRED)
endif()
set(CPMODELS_INTERFACE_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(cpmodels_interface_source out)
    get_filename_component(folder "${out}" DIRECTORY)
    add_custom_command(
        OUTPUT "${out}"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${folder}"
        COMMAND "${Python_EXECUTABLE}" "${CPMODELS_INTERFACE_DIR}/interface.py"
                "${CPMODELS_INTERFACE_DIR}/include/cpcore/entry.h" "${out}"
        DEPENDS "${CPMODELS_INTERFACE_DIR}/interface.py"
                "${CPMODELS_INTERFACE_DIR}/include/cpcore/entry.h"
        COMMENT "Describing entry.h" VERBATIM)
endfunction()
