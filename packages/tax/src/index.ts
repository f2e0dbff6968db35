export {
  INDIVIDUAL_TIN_PREFIX,
  NON_INDIVIDUAL_TIN_PREFIXES,
  isValidTin,
  normaliseTin,
  type NonIndividualTinPrefix,
  type TinKind,
  type TinResult,
} from './tin';
export { isValidMsic, normaliseMsic, type MsicResult } from './msic';
