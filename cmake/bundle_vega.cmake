# Writes OUTPUT, one script that defines the global `vega` from Debian's libjs-vega modules.
# Debian ships Vega as separate UMD modules (vega-util.min.js, vega-scale.min.js, ...) and no
# bundle; loaded as plain scripts each would replace the global `vega` of the one before, so
# each is wrapped in a function given CommonJS's exports, module and require, and the end does
# what the npm package 'vega' (index.js) does: every module's exports in one object and the
# transforms registered with the dataflow.
#   cmake -DVEGA_DIR=<dir> -DMODULES="vega-util|vega-scale|..." -DNOTICE=<file> -DOUTPUT=<file> \
#         -P bundle_vega.cmake
string(REPLACE "|" ";" MODULES "${MODULES}")
file(READ "${NOTICE}" notice)
set(text "/* Vega, from Debian's libjs-vega, each module unchanged inside its wrapper. Debian's\n   copyright file for it:\n\n${notice}*/\n")
string(APPEND text "var vega = (function () {\n'use strict';\n")
string(APPEND text "const factories = {}, loaded = {};\n")
# vega-functions asks for vega-selections; Debian's file is vega-selection.
string(APPEND text "const aliases = {'vega-selections': 'vega-selection'};\n")
string(APPEND text "function need(name) {\n  name = aliases[name] || name;\n")
string(APPEND text "  if (!loaded[name]) {\n    if (!factories[name]) throw new Error('vega module ' + name + ' is not in the bundle');\n")
string(APPEND text "    const module = {exports: {}};\n    loaded[name] = module;\n")
string(APPEND text "    factories[name].call(globalThis, module.exports, module, need);\n  }\n")
string(APPEND text "  return loaded[name].exports;\n}\n")
foreach(m IN LISTS MODULES)
  file(READ "${VEGA_DIR}/${m}.min.js" code)
  # The source map is not shipped with the page: a browser must not try to fetch it.
  string(REGEX REPLACE "\n//# sourceMappingURL=[^\n]*" "" code "${code}")
  string(APPEND text "factories['${m}'] = function (exports, module, require) {\n${code}\n};\n")
endforeach()
string(APPEND text "const all = {};\n")
foreach(m IN LISTS MODULES)
  string(APPEND text "Object.assign(all, need('${m}'));\n")
endforeach()
string(APPEND text "Object.assign(need('vega-dataflow').transforms, need('vega-transforms'),\n")
string(APPEND text "              need('vega-view-transforms'), need('vega-encode'));\n")
string(APPEND text "return all;\n})();\n")
set(tmp "${OUTPUT}.tmp")
file(WRITE "${tmp}" "${text}")
file(COPY_FILE "${tmp}" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${tmp}")
