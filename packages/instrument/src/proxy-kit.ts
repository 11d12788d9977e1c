// What an observer of MCP traffic outside the server's process (the `@toolscope/proxy` package) shares with the
// in-process adapters, so its spans and contracts are the adapters' to the byte: the same contract span, schema
// hash, deprecation reading, output check, outcome rules, result measure and hashes. Not for applications.

export { readEnvConfig } from './config.js';
export { type ContractReport, reportContract } from './contract-report.js';
export { deprecationAttributes, deprecationOfMcpTool } from './deprecation.js';
export { exceptionAttributes } from './exception.js';
export { fingerprint } from './fingerprint.js';
export { createHasher, type Hasher } from './hashing.js';
export { compileSchemaCheck, type SchemaCheck } from './json-schema-check.js';
export {
  inputRound,
  isTerminal,
  type LogicalCall,
  newLogicalCall,
  nextLeg,
  type TaskProgress,
  taskPolled,
  waitForInput,
} from './logical-call.js';
export {
  echoedStateOf,
  type Poll,
  pollOf,
  taskIdOf,
  type Unfinished,
  unfinishedOf,
} from './mcp/answer.js';
export { outcomeOfPlainResult, type ToolOutcome } from './mcp/call-result.js';
export {
  type SdkValidation,
  sdkValidationOfResult,
  sdkValidationOfText,
} from './mcp/sdk-validation.js';
export { mcpOutputFacts } from './output-facts.js';
export { mcpOutputHash } from './output-hash.js';
export { mcpOutputAttributes } from './output-size.js';
export { Parked, type ParkedEnd } from './parked.js';
export { createRedactor, type Redactor } from './redact.js';
export { schemaHashOf } from './schema-hash.js';
export {
  brokenContractFailure,
  type CallFailure,
  rpcFailure,
  setClient,
  setDeclaration,
  setFailure,
  setInput,
  setLogical,
  setMcpCall,
  setMcpResult,
  setProxy,
  setRequestIds,
  type ToolDeclaration,
  taskFailure,
  toolErrorFailure,
  UNKNOWN_TOOL,
} from './span-contract.js';
export { PACKAGE_VERSION as INSTRUMENT_VERSION } from './version.js';
