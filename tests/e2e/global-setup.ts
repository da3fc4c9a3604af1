/** Global setup of the browser tests: filled in by the dashboard work (build + start the server). */
export default async function setup() {}
