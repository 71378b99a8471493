/** Decision 3: which principals must confirm a commitment, by direct-claim confirmation mode. */
import type { ConfirmationMode } from "../types/market.js";

export function requiredConfirmations(
  mode: ConfirmationMode,
  creatorPrincipalId: string,
  participantPrincipalId: string,
): string[] {
  switch (mode) {
    case "none":
      return [];
    case "creator":
      return [creatorPrincipalId];
    case "participant":
      return [participantPrincipalId];
    case "both":
      return [creatorPrincipalId, participantPrincipalId];
  }
}
