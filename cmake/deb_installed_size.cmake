# CPack's DEB generator (CMake 3.25) counts every symbolic link at the size of the file it points
# to: with its ~60 aliases of /usr/bin/mpiscope the package claimed 392 MB installed for 7 MB of
# files, which apt would show a user. Run after packaging (CPACK_POST_BUILD_SCRIPTS): the package's
# Installed-Size is set again from its files as dpkg counts them (du of the unpacked tree, links
# as links) and the package rebuilt with dpkg-deb.
foreach(package IN LISTS CPACK_PACKAGE_FILES)
  if(NOT package MATCHES "\\.deb$")
    continue()
  endif()
  set(tree "${package}.tree")
  file(REMOVE_RECURSE "${tree}")
  execute_process(COMMAND dpkg-deb -R "${package}" "${tree}" COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND du -sk --exclude=DEBIAN "${tree}" OUTPUT_VARIABLE du_output
                  COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX MATCH "^[0-9]+" kib "${du_output}")
  file(READ "${tree}/DEBIAN/control" control)
  string(REGEX REPLACE "Installed-Size: [0-9]+" "Installed-Size: ${kib}" control "${control}")
  file(WRITE "${tree}/DEBIAN/control" "${control}")
  execute_process(COMMAND dpkg-deb --root-owner-group -b "${tree}" "${package}"
                  OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
  file(REMOVE_RECURSE "${tree}")
  message(STATUS "mpiscope: ${package}: Installed-Size ${kib} KiB")
endforeach()
