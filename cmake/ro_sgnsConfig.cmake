# ro_sgnsConfig.cmake - find_package(ro_sgns) for an installed ro_sgns.h.
# `make install` and `cmake --install` put this file in
# <prefix>/share/cmake/ro_sgns and the header in <prefix>/include. It gives
# the INTERFACE target ro_sgns::ro_sgns: the header's folder and libm (not
# with MSVC, whose C library has the math). Define RO_SGNS_IMPLEMENTATION
# in one source file of the program; link OpenMP::OpenMP_C too for threads.
get_filename_component(_ro_sgns_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT EXISTS "${_ro_sgns_prefix}/include/ro_sgns.h")
    set(ro_sgns_FOUND FALSE)
    set(ro_sgns_NOT_FOUND_MESSAGE "${_ro_sgns_prefix}/include/ro_sgns.h not found beside ${CMAKE_CURRENT_LIST_FILE}")
elseif(NOT TARGET ro_sgns::ro_sgns)
    add_library(ro_sgns::ro_sgns INTERFACE IMPORTED)
    set_target_properties(ro_sgns::ro_sgns PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${_ro_sgns_prefix}/include")
    if(NOT MSVC)
        set_target_properties(ro_sgns::ro_sgns PROPERTIES INTERFACE_LINK_LIBRARIES m)
    endif()
endif()
unset(_ro_sgns_prefix)
