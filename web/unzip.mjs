// The one function of fflate the page uses (bundled by web/build.mjs into vendor/unzip.mjs):
// reading the stored members of the page's Python bundle in the interpreter loader.
export { unzipSync } from "fflate";
