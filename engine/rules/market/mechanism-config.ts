/**
 * Spec §2.4: check a client's mechanism selection against its preset and normalize it. An unknown
 * preset is `unknown_mechanism`; a config that does not match the preset's input type, or an auction
 * whose `closesAt` is not in the future, is `invalid_mechanism_config` (both 422).
 */
import type { IValidation } from "typia";
import { reject, type Rejected } from "../decision/decision.js";
import { validateDirectClaimConfig, validateSealedAuctionConfig } from "../validation/generated/mechanism-config.js";
import { validationMessage } from "../validation/field-message.js";
import { isoFromMs, parseDateTimeMs } from "../common/time.js";
import {
  DIRECT_CLAIM_PRESET,
  SEALED_AUCTION_PRESET,
  type DirectClaimConfig,
  type DirectClaimConfigInput,
  type DirectClaimPricing,
  type MechanismSelection,
  type MechanismSelectionInput,
  type MechanismState,
  type PresetId,
  type SealedAuctionConfig,
  type UncheckedMechanismSelection,
} from "@market-service/client/wire";

export interface NormalizedMechanism {
  accepted: true;
  mechanism: MechanismSelection;
  initialState: MechanismState;
}

/**
 * Deterministic message naming the first offending member and its rule in words, e.g.
 * `mechanism.config.capacity: must be an integer from 1 to 4294967295 (got 0)`.
 */
function invalidConfig<T>(validate: (input: unknown) => IValidation<T>, config: unknown, errors: IValidation.IError[]): Rejected {
  return reject("invalid_mechanism_config", validationMessage(validate, config, errors, "mechanism.config"));
}

function normalizePricing(pricing: DirectClaimPricing): DirectClaimPricing {
  return pricing.mode === "free"
    ? { mode: "free" }
    : { mode: "posted", amountMinor: pricing.amountMinor, currency: pricing.currency };
}

function normalizeDirectClaim(config: DirectClaimConfigInput): DirectClaimConfig {
  const pricing = normalizePricing(config.pricing);
  // An explicit holdDurationSeconds: 0 with confirmation `none` is removed (§2.4).
  return config.confirmation === "none"
    ? { capacity: config.capacity, pricing, confirmation: "none" }
    : {
        capacity: config.capacity,
        pricing,
        confirmation: config.confirmation,
        holdDurationSeconds: config.holdDurationSeconds,
      };
}

/** The selection a client meant, for a preset of `P`: one member of MechanismSelectionInput. */
type SelectionOf<P extends PresetId> = Extract<MechanismSelectionInput, { presetId: P }>;

/**
 * Each preset's check of a received config against the config type MechanismSelectionInput declares
 * for that preset. Keyed by every PresetId, so a preset added to the wire's union does not compile
 * until it has its check here; each check yields exactly that preset's member of the union.
 */
const CONFIG_CHECKS: { readonly [P in PresetId]: (config: Record<string, unknown>) => SelectionOf<P> | Rejected } = {
  [DIRECT_CLAIM_PRESET]: (config) => {
    const checked = validateDirectClaimConfig(config);
    return checked.success ? { presetId: DIRECT_CLAIM_PRESET, config: checked.data } : invalidConfig(validateDirectClaimConfig, config, checked.errors);
  },
  [SEALED_AUCTION_PRESET]: (config) => {
    const checked = validateSealedAuctionConfig(config);
    return checked.success ? { presetId: SEALED_AUCTION_PRESET, config: checked.data } : invalidConfig(validateSealedAuctionConfig, config, checked.errors);
  },
};

function isPresetId(presetId: string): presetId is PresetId {
  return Object.hasOwn(CONFIG_CHECKS, presetId);
}

/**
 * The received envelope as the selection a client writes: its preset id one of the presets
 * (`unknown_mechanism` otherwise), its config that preset's declared input type
 * (`invalid_mechanism_config` otherwise).
 */
function checkSelection(input: UncheckedMechanismSelection): MechanismSelectionInput | Rejected {
  if (!isPresetId(input.presetId)) {
    return reject(
      "unknown_mechanism",
      `unknown mechanism preset; supported presets are ${DIRECT_CLAIM_PRESET} and ${SEALED_AUCTION_PRESET}`,
    );
  }
  return CONFIG_CHECKS[input.presetId](input.config);
}

export function normalizeMechanism(
  input: UncheckedMechanismSelection,
  occurredAtMs: number,
): NormalizedMechanism | Rejected {
  const selection = checkSelection(input);
  if ("rejection" in selection) return selection;
  switch (selection.presetId) {
    case DIRECT_CLAIM_PRESET:
      return {
        accepted: true,
        mechanism: { presetId: DIRECT_CLAIM_PRESET, config: normalizeDirectClaim(selection.config) },
        initialState: { allocated: 0 },
      };
    case SEALED_AUCTION_PRESET: {
      const closesAtMs = parseDateTimeMs(selection.config.closesAt);
      if (closesAtMs === undefined) {
        return reject("invalid_mechanism_config", "mechanism.config.closesAt: must be a real calendar date-time such as 2030-01-01T12:00:00Z");
      }
      if (closesAtMs <= occurredAtMs) {
        return reject(
          "invalid_mechanism_config",
          `mechanism.config.closesAt: must be after the command time ${isoFromMs(occurredAtMs)} (got ${isoFromMs(closesAtMs)})`,
        );
      }
      const config: SealedAuctionConfig = {
        currency: selection.config.currency,
        ...(selection.config.reserveAmountMinor === undefined ? {} : { reserveAmountMinor: selection.config.reserveAmountMinor }),
        closesAt: isoFromMs(closesAtMs),
        holdDurationSeconds: selection.config.holdDurationSeconds,
      };
      return { accepted: true, mechanism: { presetId: SEALED_AUCTION_PRESET, config }, initialState: { bidCount: 0 } };
    }
  }
}
