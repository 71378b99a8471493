/** Decision 3: which principals must confirm a commitment, by direct-claim confirmation mode. */
import type { ConfirmationMode } from "@market-service/client/wire";

/**
 * The one empty principal list, shared by every commitment that has none: lists are never edited
 * (a confirmation creates a new list), and a claim storm then allocates two arrays fewer per claim.
 */
export const NO_PRINCIPALS = Object.freeze([]) as unknown as string[];

export function requiredConfirmations(
  mode: ConfirmationMode,
  creatorPrincipalId: string,
  participantPrincipalId: string,
): string[] {
  switch (mode) {
    case "none":
      return NO_PRINCIPALS;
    case "creator":
      return [creatorPrincipalId];
    case "participant":
      return [participantPrincipalId];
    case "both":
      return [creatorPrincipalId, participantPrincipalId];
  }
}
