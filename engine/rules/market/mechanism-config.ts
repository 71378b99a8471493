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
  type SealedAuctionConfig,
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

export function normalizeMechanism(
  input: MechanismSelectionInput,
  occurredAtMs: number,
): NormalizedMechanism | Rejected {
  switch (input.presetId) {
    case DIRECT_CLAIM_PRESET: {
      const checked = validateDirectClaimConfig(input.config);
      if (!checked.success) return invalidConfig(validateDirectClaimConfig, input.config, checked.errors);
      return {
        accepted: true,
        mechanism: { presetId: DIRECT_CLAIM_PRESET, config: normalizeDirectClaim(checked.data) },
        initialState: { allocated: 0 },
      };
    }
    case SEALED_AUCTION_PRESET: {
      const checked = validateSealedAuctionConfig(input.config);
      if (!checked.success) return invalidConfig(validateSealedAuctionConfig, input.config, checked.errors);
      const closesAtMs = parseDateTimeMs(checked.data.closesAt);
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
        currency: checked.data.currency,
        ...(checked.data.reserveAmountMinor === undefined ? {} : { reserveAmountMinor: checked.data.reserveAmountMinor }),
        closesAt: isoFromMs(closesAtMs),
        holdDurationSeconds: checked.data.holdDurationSeconds,
      };
      return { accepted: true, mechanism: { presetId: SEALED_AUCTION_PRESET, config }, initialState: { bidCount: 0 } };
    }
    default:
      return reject(
        "unknown_mechanism",
        `unknown mechanism preset; supported presets are ${DIRECT_CLAIM_PRESET} and ${SEALED_AUCTION_PRESET}`,
      );
  }
}
