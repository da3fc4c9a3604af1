/** The deterministic sandbox bank: provider, generator and institutions. */

export { streamflixPriceMinor } from "./profiles";
export { createSandboxProvider, createSandboxPublicToken, type SandboxProviderOptions } from "./provider";
export {
  clearSandboxCache,
  generateSandboxData,
  listSandboxInstitutions,
  type SandboxData,
  type SandboxTransactionLifecycle,
} from "./world";
