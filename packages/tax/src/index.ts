export {
  INDIVIDUAL_TIN_PREFIX,
  NON_INDIVIDUAL_TIN_PREFIXES,
  isValidTin,
  normaliseTin,
  normaliseOptionalTin,
  type OptionalTinResult,
  type NonIndividualTinPrefix,
  type TinKind,
  type TinResult,
} from './tin';
export { isValidMsic, normaliseMsic, type MsicResult } from './msic';
