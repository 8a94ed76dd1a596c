export {
  type CardKeyEntry,
  type CardKeys,
  CardKeysError,
  type CardKeysOptions,
  cardKeys,
  cardKeysSetting,
  parseCardKeyEntries,
  type TrustedJwk,
} from "./card-keys.ts";
export { checkCardSignature, type SignatureCheck } from "./card-signature.ts";
