# The engine core for WebAssembly: the same sources as the Python module (src/*.cpp) built by
# clang for wasm32 and linked by wasm-ld into engine.wasm, installed beside the browser's
# loader (cpmodels/web/static/engine/). Built only when a clang that targets wasm32 and
# wasm-ld are found; the Python module does not need it.
option(CPMODELS_WASM "Build the engine core for WebAssembly when clang and wasm-ld are found" ON)

set(WASM_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(CORE_DIR "${WASM_DIR}/..")

function(cpmodels_wasm_skipped why)
    message(STATUS "cpmodels: engine.wasm skipped: ${why}")
endfunction()

if(NOT CPMODELS_WASM)
    cpmodels_wasm_skipped("CPMODELS_WASM is off")
    return()
endif()

# clang and wasm-ld as Debian and others name them (plain, or with their version).
set(_versions "" -20 -19 -18 -17 -16 -15 -14 -13)
set(_clang_names "")
set(_ld_names "")
foreach(v IN LISTS _versions)
    list(APPEND _clang_names "clang++${v}" "clang${v}")
    list(APPEND _ld_names "wasm-ld${v}")
endforeach()
find_program(CPMODELS_WASM_CLANG NAMES ${_clang_names})
find_program(CPMODELS_WASM_LD NAMES ${_ld_names})
if(NOT CPMODELS_WASM_CLANG OR NOT CPMODELS_WASM_LD)
    cpmodels_wasm_skipped("no clang and wasm-ld (apt-get install clang lld)")
    return()
endif()

set(WASM_FLAGS --target=wasm32 -std=c++17 -nostdlib -nostdinc++ -ffreestanding
    -fno-exceptions -fno-rtti -fvisibility=hidden -O2 -DNDEBUG)
if(CPMODELS_CORE_CHECKS)
    list(APPEND WASM_FLAGS -DCPCORE_DEBUG)  # a failed invariant traps (unreachable)
endif()

# Does this clang target wasm32? (Some builds leave the WebAssembly backend out.)
set(_probe "${CMAKE_CURRENT_BINARY_DIR}/wasm_probe")
file(WRITE "${_probe}.cpp" "extern \"C\" int probe(int x) { return x + 1; }\n")
execute_process(COMMAND "${CPMODELS_WASM_CLANG}" ${WASM_FLAGS} -c "${_probe}.cpp"
                        -o "${_probe}.o"
                RESULT_VARIABLE _probe_failed OUTPUT_QUIET ERROR_QUIET)
if(_probe_failed)
    cpmodels_wasm_skipped("${CPMODELS_WASM_CLANG} does not target wasm32")
    return()
endif()

# cpcore_interface (interface.cmake): engine.js reads the layout of every struct from it.
include("${CORE_DIR}/interface.cmake")
set(INTERFACE_SOURCE "${CMAKE_CURRENT_BINARY_DIR}/wasm/interface.cpp")
cpmodels_interface_source("${INTERFACE_SOURCE}")

# Every page fetches engine.wasm before its first answer, so its bytes count on a first visit
# (tests/test_site_loading.py holds that visit's bytes). The searches stay at -O2. Built for
# size (-Oz): the calls no page makes while a player waits (the cut file and its engraving,
# the CNF and proof checks, towers), the design question's loop over its reach searches
# (which stay at -O2) with its dates and label groups, the interface's text, the entry points
# no page calls (the bit-set and dancing-links counts, the difficulty's first-solution
# search: Python's alone), and the layouts a page makes once for a puzzle it opens
# (placements, the cover's and the one-word layouts, play mode's drawing); the sweep cover,
# the largest of those, at -Os, which keeps its loops' speed better than -Oz does.
set(WASM_FOR_SIZE cut engrave cnf drup towers design design_dates design_sets design_best reach_groups interface
    bit_cover links difficulty play_layout placements cover_layout one_word_layout)
set(WASM_MADE_ONCE sweep_cover)
file(GLOB WASM_SOURCES CONFIGURE_DEPENDS "${CORE_DIR}/src/*.cpp")
file(GLOB WASM_HEADERS CONFIGURE_DEPENDS "${CORE_DIR}/include/cpcore/*")
set(_objects "")
foreach(source IN LISTS WASM_SOURCES ITEMS "${WASM_DIR}/memory.cpp" "${INTERFACE_SOURCE}")
    get_filename_component(name "${source}" NAME_WE)
    set(object "${CMAKE_CURRENT_BINARY_DIR}/wasm/${name}.o")
    set(extra "")
    if(name STREQUAL "memory")
        set(extra -fno-builtin)  # memcpy and its kin, not calls of themselves
    elseif(name IN_LIST WASM_FOR_SIZE)
        set(extra -Oz)  # after -O2 in WASM_FLAGS, so this one holds
    elseif(name IN_LIST WASM_MADE_ONCE)
        set(extra -Os)
    endif()
    add_custom_command(
        OUTPUT "${object}"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/wasm"
        COMMAND "${CPMODELS_WASM_CLANG}" ${WASM_FLAGS} ${extra} -I "${CORE_DIR}/include"
                -c "${source}" -o "${object}"
        DEPENDS "${source}" ${WASM_HEADERS}
        COMMENT "Compiling ${name}.cpp for wasm32" VERBATIM)
    list(APPEND _objects "${object}")
endforeach()

# Exports: the entry points (entry.h), the memory and where the free memory starts. The
# stack comes first, so that running past it traps instead of overwriting data.
set(WASM_OUT "${CMAKE_CURRENT_BINARY_DIR}/engine.wasm")
add_custom_command(
    OUTPUT "${WASM_OUT}"
    COMMAND "${CPMODELS_WASM_LD}" --no-entry --export-dynamic --export=__heap_base
            --stack-first -z stack-size=1048576 --strip-all -o "${WASM_OUT}" ${_objects}
    DEPENDS ${_objects}
    COMMENT "Linking engine.wasm" VERBATIM)
add_custom_target(engine_wasm ALL DEPENDS "${WASM_OUT}")
install(FILES "${WASM_OUT}" DESTINATION cpmodels/web/static/engine)
message(STATUS "cpmodels: engine.wasm built with ${CPMODELS_WASM_CLANG} and ${CPMODELS_WASM_LD}")
