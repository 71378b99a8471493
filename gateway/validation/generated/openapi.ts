import type { AuditKeyList, AuthenticationChallenge, AuthenticationTokenGrant, CommitmentActionBody, CreateChallengeBody, CreateMarketBody, Delegation, DirectClaimBody, ErrorBody, HealthStatus, IssueDelegationBody, IssueTokenBody, LogConsistencyProof, LogHead, LogInclusionProof, Market, MarketActionResult, MarketOutcome, MarketRecord, MarketResult, ProvisionedIdentity, ProvisionIdentityBody, PublishMarketBody, RevokeDelegationBody, SealedBidBody } from "@market-service/client/wire";
export const openApiComponents = {
    version: "3.1",
    components: {
        schemas: {
            HealthStatus: {
                type: "object",
                properties: {
                    status: {
                        "const": "ok"
                    }
                },
                required: [
                    "status"
                ],
                description: "GET /healthz"
            },
            CreateChallengeBody: {
                type: "object",
                properties: {
                    actorId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    keyId: {
                        $ref: "#/components/schemas/Identifier"
                    }
                },
                required: [
                    "actorId",
                    "keyId"
                ],
                description: "POST /v1/auth/challenges (unauthenticated)."
            },
            Identifier: {
                type: "string",
                minLength: 1,
                maxLength: 128,
                pattern: "^[^\\u0000-\\u001F\\u007F]+$",
                description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that."
            },
            AuthenticationChallenge: {
                type: "object",
                properties: {
                    id: {
                        type: "string"
                    },
                    actorId: {
                        type: "string"
                    },
                    keyId: {
                        type: "string"
                    },
                    audience: {
                        type: "string"
                    },
                    nonce: {
                        type: "string",
                        description: "Unpadded base64url of 32 random bytes."
                    },
                    expiresAt: {
                        type: "string"
                    },
                    signingPayload: {
                        type: "string",
                        description: "Unpadded base64url of the exact bytes to sign (layout: signing-payload.ts, docs/auth.md)."
                    }
                },
                required: [
                    "id",
                    "actorId",
                    "keyId",
                    "audience",
                    "nonce",
                    "expiresAt",
                    "signingPayload"
                ]
            },
            IssueTokenBody: {
                type: "object",
                properties: {
                    challengeId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    nonce: {
                        type: "string",
                        minLength: 1,
                        maxLength: 64,
                        description: "The challenge nonce, unpadded base64url of 32 bytes."
                    },
                    signature: {
                        type: "string",
                        minLength: 1,
                        maxLength: 128,
                        description: "Unpadded base64url of the 64-byte Ed25519 signature over the decoded signing payload."
                    }
                },
                required: [
                    "challengeId",
                    "nonce",
                    "signature"
                ],
                description: "POST /v1/auth/tokens (unauthenticated)."
            },
            AuthenticationTokenGrant: {
                type: "object",
                properties: {
                    accessToken: {
                        type: "string"
                    },
                    tokenType: {
                        "const": "Bearer"
                    },
                    actorId: {
                        type: "string"
                    },
                    expiresAt: {
                        type: "string"
                    }
                },
                required: [
                    "accessToken",
                    "tokenType",
                    "actorId",
                    "expiresAt"
                ]
            },
            ProvisionIdentityBody: {
                type: "object",
                properties: {
                    commandId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    actorId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    keyId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    publicKey: {
                        $ref: "#/components/schemas/PublicKeyText"
                    }
                },
                required: [
                    "commandId",
                    "principalId",
                    "actorId",
                    "keyId",
                    "publicKey"
                ],
                description: "POST /v1/admin/identities (operator actors only)."
            },
            PublicKeyText: {
                type: "string",
                minLength: 43,
                maxLength: 43,
                pattern: "^[A-Za-z0-9_-]{43}$",
                description: "Unpadded base64url of a 32-byte Ed25519 public key: always exactly 43 characters."
            },
            ProvisionedIdentity: {
                type: "object",
                properties: {
                    principal: {
                        $ref: "#/components/schemas/Principal"
                    },
                    actor: {
                        $ref: "#/components/schemas/Actor"
                    },
                    key: {
                        $ref: "#/components/schemas/ActorKey"
                    }
                },
                required: [
                    "principal",
                    "actor",
                    "key"
                ],
                description: "201 body of POST /v1/admin/identities."
            },
            Principal: {
                type: "object",
                properties: {
                    id: {
                        type: "string"
                    },
                    createdAt: {
                        type: "string"
                    },
                    disabledAt: {
                        type: "string"
                    }
                },
                required: [
                    "id",
                    "createdAt"
                ]
            },
            Actor: {
                type: "object",
                properties: {
                    id: {
                        type: "string"
                    },
                    createdAt: {
                        type: "string"
                    },
                    disabledAt: {
                        type: "string"
                    }
                },
                required: [
                    "id",
                    "createdAt"
                ]
            },
            ActorKey: {
                type: "object",
                properties: {
                    id: {
                        type: "string"
                    },
                    actorId: {
                        type: "string"
                    },
                    algorithm: {
                        "const": "Ed25519"
                    },
                    publicKey: {
                        type: "string",
                        description: "Unpadded base64url of the 32-byte public key."
                    },
                    createdAt: {
                        type: "string"
                    },
                    revokedAt: {
                        type: "string"
                    }
                },
                required: [
                    "id",
                    "actorId",
                    "algorithm",
                    "publicKey",
                    "createdAt"
                ]
            },
            IssueDelegationBody: {
                type: "object",
                properties: {
                    commandId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    delegationId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    delegateActorId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    scopes: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/AuthorityScope"
                        },
                        minItems: 1,
                        uniqueItems: true,
                        maxItems: 7,
                        description: "At least one, no repeats; seven scopes exist, so at most seven."
                    },
                    validUntil: {
                        $ref: "#/components/schemas/DateTime",
                        description: "Must be after the server command time (`validFrom`)."
                    }
                },
                required: [
                    "commandId",
                    "delegationId",
                    "principalId",
                    "delegateActorId",
                    "scopes"
                ],
                description: "POST /v1/delegations (self-representing principal only)."
            },
            PathIdentifier: {
                type: "string",
                minLength: 1,
                maxLength: 128,
                pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$",
                description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named."
            },
            AuthorityScope: {
                oneOf: [
                    {
                        "const": "market:create"
                    },
                    {
                        "const": "market:publish"
                    },
                    {
                        "const": "market:claim"
                    },
                    {
                        "const": "market:bid"
                    },
                    {
                        "const": "commitment:confirm"
                    },
                    {
                        "const": "commitment:decline"
                    },
                    {
                        "const": "credential:issue"
                    }
                ]
            },
            DateTime: {
                type: "string",
                format: "date-time",
                description: "RFC 3339 timestamp. Values the service emits are always `Date.prototype.toISOString()` form."
            },
            RevokeDelegationBody: {
                type: "object",
                properties: {
                    commandId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    }
                },
                required: [
                    "commandId",
                    "principalId"
                ],
                description: "POST /v1/delegations/{delegationId}/revoke (the owning self-representing principal only)."
            },
            Delegation: {
                type: "object",
                properties: {
                    id: {
                        type: "string"
                    },
                    principalId: {
                        type: "string"
                    },
                    actorId: {
                        type: "string",
                        description: "The delegate."
                    },
                    scopes: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/AuthorityScope"
                        }
                    },
                    validFrom: {
                        type: "string"
                    },
                    validUntil: {
                        type: "string"
                    },
                    revokedAt: {
                        type: "string"
                    }
                },
                required: [
                    "id",
                    "principalId",
                    "actorId",
                    "scopes",
                    "validFrom"
                ]
            },
            CreateMarketBody: {
                type: "object",
                properties: {
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    subject: {
                        $ref: "#/components/schemas/Subject"
                    },
                    mechanism: {
                        $ref: "#/components/schemas/MechanismSelectionInput"
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Actor-scoped idempotency key."
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Principal the authenticated actor represents."
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Delegation id; required when the actor acts for another principal."
                    }
                },
                required: [
                    "marketId",
                    "subject",
                    "mechanism",
                    "commandId",
                    "principalId"
                ],
                description: "POST /v1/markets"
            },
            Subject: {
                type: "object",
                properties: {
                    schema: {
                        type: "string",
                        minLength: 1,
                        maxLength: 256,
                        description: "Client-chosen versioned identifier of the data shape, e.g. `table-booking.v2`."
                    },
                    data: {
                        $ref: "#/components/schemas/Recordstringunknown",
                        description: "Any JSON object; additional members allowed."
                    }
                },
                required: [
                    "schema",
                    "data"
                ],
                description: "Spec \u00A72.1 Subject: `data` is any JSON object; the gateway bounds its size and nesting depth."
            },
            Recordstringunknown: {
                type: "object",
                properties: {},
                required: [],
                description: "Construct a type with a set of properties K of type T",
                additionalProperties: {}
            },
            MechanismSelectionInput: {
                oneOf: [
                    {
                        $ref: "#/components/schemas/DirectClaimSelectionInput"
                    },
                    {
                        $ref: "#/components/schemas/SealedAuctionSelectionInput"
                    }
                ],
                discriminator: {
                    propertyName: "presetId",
                    mapping: {
                        "direct-claim.v1": "#/components/schemas/DirectClaimSelectionInput",
                        "sealed-forward-auction.v1": "#/components/schemas/SealedAuctionSelectionInput"
                    }
                },
                description: "The allocation mechanism and its configuration (\u00A72.4), discriminated by `presetId`: each preset\nwith its own config type. The service answers another preset id with 422 `unknown_mechanism` and a\nconfig that does not fit its preset with 422 `invalid_mechanism_config`."
            },
            DirectClaimSelectionInput: {
                type: "object",
                properties: {
                    presetId: {
                        "const": "direct-claim.v1",
                        description: "`direct-claim.v1`: first-come claims."
                    },
                    config: {
                        $ref: "#/components/schemas/DirectClaimConfigInput"
                    }
                },
                required: [
                    "presetId",
                    "config"
                ],
                description: "direct-claim.v1 as a client selects it: first-come claims."
            },
            DirectClaimConfigInput: {
                oneOf: [
                    {
                        $ref: "#/components/schemas/DirectClaimConfigInputWithoutHold"
                    },
                    {
                        $ref: "#/components/schemas/DirectClaimConfigWithHold"
                    }
                ],
                description: "direct-claim.v1 configuration as a client sends it, discriminated by `confirmation` (\u00A72.4).\nWith `none` an explicit `holdDurationSeconds` must be 0 and is removed by normalization."
            },
            DirectClaimConfigInputWithoutHold: {
                type: "object",
                properties: {
                    capacity: {
                        $ref: "#/components/schemas/PositiveUint32",
                        description: "Number of successful commitments the market can allocate."
                    },
                    pricing: {
                        $ref: "#/components/schemas/DirectClaimPricing"
                    },
                    confirmation: {
                        "const": "none"
                    },
                    holdDurationSeconds: {
                        "const": 0
                    }
                },
                required: [
                    "capacity",
                    "pricing",
                    "confirmation"
                ]
            },
            PositiveUint32: {
                type: "integer",
                minimum: 1
            },
            DirectClaimPricing: {
                oneOf: [
                    {
                        $ref: "#/components/schemas/FreePricing"
                    },
                    {
                        $ref: "#/components/schemas/PostedPricing"
                    }
                ],
                discriminator: {
                    propertyName: "mode",
                    mapping: {
                        free: "#/components/schemas/FreePricing",
                        posted: "#/components/schemas/PostedPricing"
                    }
                },
                description: "DirectClaimPricing, discriminated by `mode`."
            },
            FreePricing: {
                type: "object",
                properties: {
                    mode: {
                        "const": "free"
                    }
                },
                required: [
                    "mode"
                ]
            },
            PostedPricing: {
                type: "object",
                properties: {
                    mode: {
                        "const": "posted"
                    },
                    amountMinor: {
                        $ref: "#/components/schemas/PositiveAmountMinor"
                    },
                    currency: {
                        $ref: "#/components/schemas/Currency"
                    }
                },
                required: [
                    "mode",
                    "amountMinor",
                    "currency"
                ]
            },
            PositiveAmountMinor: {
                type: "integer",
                minimum: 1,
                maximum: 9007199254740991,
                description: "Amounts in minor currency units that must be at least 1 (bids, posted prices, reserves)."
            },
            Currency: {
                type: "string",
                pattern: "^[A-Z]{3}$"
            },
            DirectClaimConfigWithHold: {
                type: "object",
                properties: {
                    capacity: {
                        $ref: "#/components/schemas/PositiveUint32"
                    },
                    pricing: {
                        $ref: "#/components/schemas/DirectClaimPricing"
                    },
                    confirmation: {
                        oneOf: [
                            {
                                "const": "creator"
                            },
                            {
                                "const": "participant"
                            },
                            {
                                "const": "both"
                            }
                        ],
                        description: "Principals that must confirm before the commitment is final."
                    },
                    holdDurationSeconds: {
                        $ref: "#/components/schemas/PositiveUint32",
                        description: "Confirmation period before expiry."
                    }
                },
                required: [
                    "capacity",
                    "pricing",
                    "confirmation",
                    "holdDurationSeconds"
                ]
            },
            SealedAuctionSelectionInput: {
                type: "object",
                properties: {
                    presetId: {
                        "const": "sealed-forward-auction.v1",
                        description: "`sealed-forward-auction.v1`: a sealed second-price auction."
                    },
                    config: {
                        $ref: "#/components/schemas/SealedAuctionConfig"
                    }
                },
                required: [
                    "presetId",
                    "config"
                ],
                description: "sealed-forward-auction.v1 as a client selects it: a sealed second-price auction."
            },
            SealedAuctionConfig: {
                type: "object",
                properties: {
                    currency: {
                        $ref: "#/components/schemas/Currency"
                    },
                    reserveAmountMinor: {
                        $ref: "#/components/schemas/PositiveAmountMinor"
                    },
                    closesAt: {
                        $ref: "#/components/schemas/DateTime",
                        description: "Fixed close; must still be in the future when the draft is published."
                    },
                    holdDurationSeconds: {
                        $ref: "#/components/schemas/PositiveUint32",
                        description: "Winner confirmation period after resolution."
                    }
                },
                required: [
                    "currency",
                    "closesAt",
                    "holdDurationSeconds"
                ],
                description: "sealed-forward-auction.v1 configuration (\u00A72.4); normalization rewrites `closesAt` to UTC milliseconds."
            },
            PublishMarketBody: {
                type: "object",
                properties: {
                    expectedVersion: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "The current draft version."
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Actor-scoped idempotency key."
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Principal the authenticated actor represents."
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Delegation id; required when the actor acts for another principal."
                    }
                },
                required: [
                    "expectedVersion",
                    "commandId",
                    "principalId"
                ],
                description: "POST /v1/markets/{marketId}/publish"
            },
            PositiveSafeUint64: {
                type: "integer",
                minimum: 1,
                maximum: 9007199254740991
            },
            DirectClaimBody: {
                type: "object",
                properties: {
                    expectedVersion: {
                        $ref: "#/components/schemas/SafeUint64",
                        description: "Omit or 0 for server arrival order; otherwise must equal the current market version."
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Actor-scoped idempotency key."
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Principal the authenticated actor represents."
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Delegation id; required when the actor acts for another principal."
                    }
                },
                required: [
                    "commandId",
                    "principalId"
                ],
                description: "POST /v1/markets/{marketId}/direct-claims"
            },
            SafeUint64: {
                type: "integer",
                minimum: 0,
                maximum: 9007199254740991,
                description: "uint64 restricted to safe integers: larger values are rejected, never rounded."
            },
            SealedBidBody: {
                type: "object",
                properties: {
                    amountMinor: {
                        $ref: "#/components/schemas/PositiveAmountMinor"
                    },
                    currency: {
                        $ref: "#/components/schemas/Currency"
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Actor-scoped idempotency key."
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Principal the authenticated actor represents."
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Delegation id; required when the actor acts for another principal."
                    }
                },
                required: [
                    "amountMinor",
                    "currency",
                    "commandId",
                    "principalId"
                ],
                description: "POST /v1/markets/{marketId}/sealed-bids"
            },
            CommitmentActionBody: {
                type: "object",
                properties: {
                    commandId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Actor-scoped idempotency key."
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Principal the authenticated actor represents."
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Delegation id; required when the actor acts for another principal."
                    }
                },
                required: [
                    "commandId",
                    "principalId"
                ],
                description: "POST /v1/commitments/{commitmentId}/confirm and /decline"
            },
            MarketResult: {
                type: "object",
                properties: {
                    market: {
                        $ref: "#/components/schemas/Market"
                    },
                    events: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Event"
                        }
                    }
                },
                required: [
                    "market",
                    "events"
                ]
            },
            Market: {
                type: "object",
                properties: {
                    id: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    version: {
                        $ref: "#/components/schemas/PositiveSafeUint64"
                    },
                    state: {
                        $ref: "#/components/schemas/MarketState"
                    },
                    creator: {
                        $ref: "#/components/schemas/CommandIdentity"
                    },
                    subject: {
                        $ref: "#/components/schemas/Subject"
                    },
                    mechanism: {
                        $ref: "#/components/schemas/MechanismSelection"
                    },
                    mechanismState: {
                        $ref: "#/components/schemas/MechanismState"
                    },
                    createdAt: {
                        $ref: "#/components/schemas/DateTime"
                    },
                    updatedAt: {
                        $ref: "#/components/schemas/DateTime"
                    }
                },
                required: [
                    "id",
                    "version",
                    "state",
                    "creator",
                    "subject",
                    "mechanism",
                    "mechanismState",
                    "createdAt",
                    "updatedAt"
                ],
                description: "Spec \u00A72.3."
            },
            MarketState: {
                oneOf: [
                    {
                        "const": "draft"
                    },
                    {
                        "const": "open"
                    },
                    {
                        "const": "closed"
                    }
                ]
            },
            CommandIdentity: {
                type: "object",
                properties: {
                    principalId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Principal whose rights or obligations are affected."
                    },
                    actorId: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Authenticated submitter."
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier",
                        description: "Delegation used when actor and principal differ."
                    }
                },
                required: [
                    "principalId",
                    "actorId"
                ],
                description: "Spec \u00A72.1 CommandIdentity."
            },
            MechanismSelection: {
                oneOf: [
                    {
                        $ref: "#/components/schemas/DirectClaimSelection"
                    },
                    {
                        $ref: "#/components/schemas/SealedAuctionSelection"
                    }
                ],
                discriminator: {
                    propertyName: "presetId",
                    mapping: {
                        "direct-claim.v1": "#/components/schemas/DirectClaimSelection",
                        "sealed-forward-auction.v1": "#/components/schemas/SealedAuctionSelection"
                    }
                },
                description: "Normalized, immutable mechanism configuration of a market."
            },
            DirectClaimSelection: {
                type: "object",
                properties: {
                    presetId: {
                        "const": "direct-claim.v1"
                    },
                    config: {
                        $ref: "#/components/schemas/DirectClaimConfig"
                    }
                },
                required: [
                    "presetId",
                    "config"
                ]
            },
            DirectClaimConfig: {
                oneOf: [
                    {
                        $ref: "#/components/schemas/DirectClaimConfigWithHold"
                    },
                    {
                        $ref: "#/components/schemas/DirectClaimConfigWithoutHold"
                    }
                ],
                description: "Normalized direct-claim.v1 configuration, as stored and returned."
            },
            DirectClaimConfigWithoutHold: {
                type: "object",
                properties: {
                    capacity: {
                        $ref: "#/components/schemas/PositiveUint32"
                    },
                    pricing: {
                        $ref: "#/components/schemas/DirectClaimPricing"
                    },
                    confirmation: {
                        "const": "none"
                    }
                },
                required: [
                    "capacity",
                    "pricing",
                    "confirmation"
                ]
            },
            SealedAuctionSelection: {
                type: "object",
                properties: {
                    presetId: {
                        "const": "sealed-forward-auction.v1"
                    },
                    config: {
                        $ref: "#/components/schemas/SealedAuctionConfig"
                    }
                },
                required: [
                    "presetId",
                    "config"
                ]
            },
            MechanismState: {
                oneOf: [
                    {
                        $ref: "#/components/schemas/DirectClaimState"
                    },
                    {
                        $ref: "#/components/schemas/SealedAuctionState"
                    }
                ]
            },
            DirectClaimState: {
                type: "object",
                properties: {
                    allocated: {
                        $ref: "#/components/schemas/Uint32",
                        description: "Capacity currently held or committed."
                    }
                },
                required: [
                    "allocated"
                ],
                description: "Public state of a direct-claim.v1 market."
            },
            Uint32: {
                type: "integer",
                minimum: 0
            },
            SealedAuctionState: {
                type: "object",
                properties: {
                    bidCount: {
                        $ref: "#/components/schemas/Uint32",
                        description: "Accepted bids."
                    },
                    resolution: {
                        $ref: "#/components/schemas/AuctionResolutionOutcome"
                    },
                    winningBidId: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    excludedBidIds: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/GeneratedId"
                        },
                        description: "Bids excluded after a winner declined or expired, in exclusion order."
                    }
                },
                required: [
                    "bidCount"
                ],
                description: "Public state of a sealed-forward-auction.v1 market: bid contents are private."
            },
            AuctionResolutionOutcome: {
                oneOf: [
                    {
                        "const": "winner_selected"
                    },
                    {
                        "const": "no_trade"
                    }
                ]
            },
            GeneratedId: {
                type: "string",
                minLength: 1,
                maxLength: 1024,
                description: "An id the service generated (commitment, bid, event). Longer, because it embeds a market id."
            },
            Event: {
                oneOf: [
                    {
                        $ref: "#/components/schemas/DraftCreatedEvent"
                    },
                    {
                        $ref: "#/components/schemas/PublishedEvent"
                    },
                    {
                        $ref: "#/components/schemas/DirectClaimAcceptedEvent"
                    },
                    {
                        $ref: "#/components/schemas/BidSubmittedEvent"
                    },
                    {
                        $ref: "#/components/schemas/AuctionResolvedEvent"
                    },
                    {
                        $ref: "#/components/schemas/CommitmentEvent"
                    }
                ],
                description: "Every public event."
            },
            DraftCreatedEvent: {
                type: "object",
                properties: {
                    sequence: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Durable order within the market record (always present from this service)."
                    },
                    id: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    type: {
                        "const": "market.draft_created"
                    },
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    marketVersion: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Market version after the command that emitted this event."
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    actorId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    occurredAt: {
                        $ref: "#/components/schemas/DateTime",
                        description: "Server-stamped command time."
                    },
                    data: {
                        $ref: "#/components/schemas/DraftCreatedData"
                    }
                },
                required: [
                    "id",
                    "type",
                    "marketId",
                    "marketVersion",
                    "commandId",
                    "principalId",
                    "actorId",
                    "occurredAt",
                    "data"
                ]
            },
            DraftCreatedData: {
                type: "object",
                properties: {
                    creator: {
                        $ref: "#/components/schemas/CommandIdentity"
                    },
                    subject: {
                        $ref: "#/components/schemas/Subject"
                    },
                    mechanism: {
                        $ref: "#/components/schemas/MechanismSelection"
                    },
                    mechanismState: {
                        $ref: "#/components/schemas/MechanismState"
                    }
                },
                required: [
                    "creator",
                    "subject",
                    "mechanism",
                    "mechanismState"
                ]
            },
            PublishedEvent: {
                type: "object",
                properties: {
                    sequence: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Durable order within the market record (always present from this service)."
                    },
                    id: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    type: {
                        "const": "market.published"
                    },
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    marketVersion: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Market version after the command that emitted this event."
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    actorId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    occurredAt: {
                        $ref: "#/components/schemas/DateTime",
                        description: "Server-stamped command time."
                    },
                    data: {
                        $ref: "#/components/schemas/PublishedData"
                    }
                },
                required: [
                    "id",
                    "type",
                    "marketId",
                    "marketVersion",
                    "commandId",
                    "principalId",
                    "actorId",
                    "occurredAt",
                    "data"
                ]
            },
            PublishedData: {
                type: "object",
                properties: {
                    previousState: {
                        "const": "draft"
                    },
                    state: {
                        "const": "open"
                    }
                },
                required: [
                    "previousState",
                    "state"
                ]
            },
            DirectClaimAcceptedEvent: {
                type: "object",
                properties: {
                    sequence: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Durable order within the market record (always present from this service)."
                    },
                    id: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    type: {
                        "const": "direct_claim.accepted"
                    },
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    marketVersion: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Market version after the command that emitted this event."
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    actorId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    occurredAt: {
                        $ref: "#/components/schemas/DateTime",
                        description: "Server-stamped command time."
                    },
                    data: {
                        $ref: "#/components/schemas/DirectClaimAcceptedData"
                    }
                },
                required: [
                    "id",
                    "type",
                    "marketId",
                    "marketVersion",
                    "commandId",
                    "principalId",
                    "actorId",
                    "occurredAt",
                    "data"
                ]
            },
            DirectClaimAcceptedData: {
                type: "object",
                properties: {
                    commitmentId: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    allocated: {
                        $ref: "#/components/schemas/PositiveUint32",
                        description: "Allocation after this claim."
                    },
                    capacity: {
                        $ref: "#/components/schemas/PositiveUint32"
                    }
                },
                required: [
                    "commitmentId",
                    "allocated",
                    "capacity"
                ]
            },
            BidSubmittedEvent: {
                type: "object",
                properties: {
                    sequence: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Durable order within the market record (always present from this service)."
                    },
                    id: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    type: {
                        "const": "sealed_auction.bid_submitted"
                    },
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    marketVersion: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Market version after the command that emitted this event."
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    actorId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    occurredAt: {
                        $ref: "#/components/schemas/DateTime",
                        description: "Server-stamped command time."
                    },
                    data: {
                        $ref: "#/components/schemas/BidSubmittedData"
                    }
                },
                required: [
                    "id",
                    "type",
                    "marketId",
                    "marketVersion",
                    "commandId",
                    "principalId",
                    "actorId",
                    "occurredAt",
                    "data"
                ]
            },
            BidSubmittedData: {
                type: "object",
                properties: {
                    bidId: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    bidCount: {
                        $ref: "#/components/schemas/PositiveUint32",
                        description: "Accepted bids after this one."
                    }
                },
                required: [
                    "bidId",
                    "bidCount"
                ]
            },
            AuctionResolvedEvent: {
                type: "object",
                properties: {
                    sequence: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Durable order within the market record (always present from this service)."
                    },
                    id: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    type: {
                        "const": "sealed_auction.resolved"
                    },
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    marketVersion: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Market version after the command that emitted this event."
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    actorId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    occurredAt: {
                        $ref: "#/components/schemas/DateTime",
                        description: "Server-stamped command time."
                    },
                    data: {
                        $ref: "#/components/schemas/SealedAuctionResolution"
                    }
                },
                required: [
                    "id",
                    "type",
                    "marketId",
                    "marketVersion",
                    "commandId",
                    "principalId",
                    "actorId",
                    "occurredAt",
                    "data"
                ]
            },
            SealedAuctionResolution: {
                oneOf: [
                    {
                        $ref: "#/components/schemas/NoTradeResolution"
                    },
                    {
                        $ref: "#/components/schemas/WinnerSelectedResolution"
                    }
                ],
                discriminator: {
                    propertyName: "outcome",
                    mapping: {
                        no_trade: "#/components/schemas/NoTradeResolution",
                        winner_selected: "#/components/schemas/WinnerSelectedResolution"
                    }
                }
            },
            NoTradeResolution: {
                type: "object",
                properties: {
                    outcome: {
                        "const": "no_trade"
                    }
                },
                required: [
                    "outcome"
                ]
            },
            WinnerSelectedResolution: {
                type: "object",
                properties: {
                    outcome: {
                        "const": "winner_selected"
                    },
                    winningBidId: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    winnerPrincipalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    clearingPrice: {
                        $ref: "#/components/schemas/SealedAuctionClearingPrice"
                    }
                },
                required: [
                    "outcome",
                    "winningBidId",
                    "winnerPrincipalId",
                    "clearingPrice"
                ]
            },
            SealedAuctionClearingPrice: {
                type: "object",
                properties: {
                    rule: {
                        "const": "second_price"
                    },
                    amountMinor: {
                        $ref: "#/components/schemas/NonNegativeAmountMinor",
                        description: "Second-highest eligible bid, or the reserve when higher; zero with one bidder and no reserve."
                    },
                    currency: {
                        $ref: "#/components/schemas/Currency"
                    }
                },
                required: [
                    "rule",
                    "amountMinor",
                    "currency"
                ]
            },
            NonNegativeAmountMinor: {
                type: "integer",
                minimum: 0,
                maximum: 9007199254740991,
                description: "Clearing price: zero is possible (no reserve, one bidder)."
            },
            CommitmentEvent: {
                type: "object",
                properties: {
                    sequence: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Durable order within the market record (always present from this service)."
                    },
                    id: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    type: {
                        $ref: "#/components/schemas/CommitmentEventType"
                    },
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    marketVersion: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Market version after the command that emitted this event."
                    },
                    commandId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    actorId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    authorityRef: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    occurredAt: {
                        $ref: "#/components/schemas/DateTime",
                        description: "Server-stamped command time."
                    },
                    data: {
                        $ref: "#/components/schemas/CommitmentStateChangedEventData"
                    }
                },
                required: [
                    "id",
                    "type",
                    "marketId",
                    "marketVersion",
                    "commandId",
                    "principalId",
                    "actorId",
                    "occurredAt",
                    "data"
                ]
            },
            CommitmentEventType: {
                oneOf: [
                    {
                        "const": "commitment.provisional"
                    },
                    {
                        "const": "commitment.awaiting_confirmations"
                    },
                    {
                        "const": "commitment.committed"
                    },
                    {
                        "const": "commitment.confirmation_recorded"
                    },
                    {
                        "const": "commitment.declined"
                    },
                    {
                        "const": "commitment.expired"
                    }
                ]
            },
            CommitmentStateChangedEventData: {
                type: "object",
                properties: {
                    commitmentId: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    state: {
                        $ref: "#/components/schemas/CommitmentState"
                    },
                    requiredConfirmationPrincipalIds: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Identifier"
                        }
                    },
                    confirmedPrincipalIds: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Identifier"
                        }
                    },
                    expiresAt: {
                        $ref: "#/components/schemas/DateTime"
                    }
                },
                required: [
                    "commitmentId",
                    "state"
                ]
            },
            CommitmentState: {
                oneOf: [
                    {
                        "const": "provisional"
                    },
                    {
                        "const": "awaiting_confirmations"
                    },
                    {
                        "const": "committed"
                    },
                    {
                        "const": "declined"
                    },
                    {
                        "const": "expired"
                    },
                    {
                        "const": "failed"
                    }
                ]
            },
            MarketActionResult: {
                type: "object",
                properties: {
                    market: {
                        $ref: "#/components/schemas/Market"
                    },
                    commitments: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Commitment"
                        },
                        description: "Commitments created or changed by the command."
                    },
                    events: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Event"
                        }
                    },
                    bidReceipts: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/SealedBidReceipt"
                        }
                    },
                    auctionResolution: {
                        $ref: "#/components/schemas/SealedAuctionResolution"
                    }
                },
                required: [
                    "market",
                    "commitments",
                    "events"
                ]
            },
            Commitment: {
                type: "object",
                properties: {
                    id: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    version: {
                        $ref: "#/components/schemas/PositiveSafeUint64"
                    },
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    marketVersion: {
                        $ref: "#/components/schemas/PositiveSafeUint64",
                        description: "Market version as of this commitment's latest change."
                    },
                    creatorPrincipalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    participantPrincipalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    state: {
                        $ref: "#/components/schemas/CommitmentState"
                    },
                    terms: {
                        $ref: "#/components/schemas/CommitmentTerms",
                        description: "Immutable, generated by the mechanism."
                    },
                    requiredConfirmationPrincipalIds: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Identifier"
                        }
                    },
                    confirmedPrincipalIds: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Identifier"
                        }
                    },
                    expiresAt: {
                        $ref: "#/components/schemas/DateTime",
                        description: "Confirmation deadline; kept after the commitment leaves `awaiting_confirmations`."
                    },
                    createdAt: {
                        $ref: "#/components/schemas/DateTime"
                    },
                    updatedAt: {
                        $ref: "#/components/schemas/DateTime"
                    }
                },
                required: [
                    "id",
                    "version",
                    "marketId",
                    "marketVersion",
                    "creatorPrincipalId",
                    "participantPrincipalId",
                    "state",
                    "terms",
                    "createdAt",
                    "updatedAt"
                ]
            },
            CommitmentTerms: {
                oneOf: [
                    {
                        $ref: "#/components/schemas/DirectClaimCommitmentTerms"
                    },
                    {
                        $ref: "#/components/schemas/SealedAuctionCommitmentTerms"
                    }
                ]
            },
            DirectClaimCommitmentTerms: {
                type: "object",
                properties: {
                    subject: {
                        $ref: "#/components/schemas/Subject"
                    },
                    pricing: {
                        $ref: "#/components/schemas/DirectClaimPricing"
                    }
                },
                required: [
                    "subject",
                    "pricing"
                ]
            },
            SealedAuctionCommitmentTerms: {
                type: "object",
                properties: {
                    subject: {
                        $ref: "#/components/schemas/Subject"
                    },
                    winningBidId: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    pricing: {
                        $ref: "#/components/schemas/SealedAuctionClearingPrice"
                    }
                },
                required: [
                    "subject",
                    "winningBidId",
                    "pricing"
                ]
            },
            SealedBidReceipt: {
                type: "object",
                properties: {
                    bidId: {
                        $ref: "#/components/schemas/GeneratedId"
                    },
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    marketVersion: {
                        $ref: "#/components/schemas/PositiveSafeUint64"
                    },
                    state: {
                        "const": "active"
                    },
                    submittedAt: {
                        $ref: "#/components/schemas/DateTime"
                    }
                },
                required: [
                    "bidId",
                    "marketId",
                    "marketVersion",
                    "state",
                    "submittedAt"
                ],
                description: "Amount-free acknowledgement of an accepted sealed bid."
            },
            MarketRecord: {
                type: "object",
                properties: {
                    market: {
                        $ref: "#/components/schemas/Market"
                    },
                    commands: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/RecordedCommand"
                        }
                    },
                    commitments: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Commitment"
                        }
                    },
                    events: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Event"
                        }
                    },
                    integrity: {
                        $ref: "#/components/schemas/RecordIntegrity"
                    }
                },
                required: [
                    "market",
                    "commands",
                    "commitments",
                    "events",
                    "integrity"
                ]
            },
            RecordedCommand: {
                type: "object",
                properties: {
                    sequence: {
                        $ref: "#/components/schemas/PositiveSafeUint64"
                    },
                    id: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    type: {
                        $ref: "#/components/schemas/CommandType"
                    },
                    marketId: {
                        type: "string",
                        description: "Empty only when a rejected command could not be associated with a market."
                    },
                    identity: {
                        $ref: "#/components/schemas/CommandIdentity"
                    },
                    request: {
                        $ref: "#/components/schemas/Recordstringunknown",
                        description: "The recorded application command including server-assigned identity and time. An open sealed\nbid is redacted to `{sealed: true}`."
                    },
                    status: {
                        oneOf: [
                            {
                                "const": "accepted"
                            },
                            {
                                "const": "rejected"
                            }
                        ]
                    },
                    rejectionCode: {
                        $ref: "#/components/schemas/ErrorCode"
                    },
                    occurredAt: {
                        $ref: "#/components/schemas/DateTime"
                    },
                    recordedAt: {
                        $ref: "#/components/schemas/DateTime"
                    }
                },
                required: [
                    "sequence",
                    "id",
                    "type",
                    "marketId",
                    "identity",
                    "request",
                    "status",
                    "occurredAt",
                    "recordedAt"
                ]
            },
            CommandType: {
                oneOf: [
                    {
                        "const": "market.create_draft"
                    },
                    {
                        "const": "market.publish"
                    },
                    {
                        "const": "direct_claim.submit"
                    },
                    {
                        "const": "sealed_auction.submit_bid"
                    },
                    {
                        "const": "sealed_auction.resolve"
                    },
                    {
                        "const": "commitment.confirm"
                    },
                    {
                        "const": "commitment.decline"
                    },
                    {
                        "const": "commitment.expire"
                    }
                ]
            },
            ErrorCode: {
                oneOf: [
                    {
                        "const": "invalid_request"
                    },
                    {
                        "const": "unauthenticated"
                    },
                    {
                        "const": "forbidden"
                    },
                    {
                        "const": "identity_conflict"
                    },
                    {
                        "const": "identity_not_found"
                    },
                    {
                        "const": "delegation_not_found"
                    },
                    {
                        "const": "delegation_conflict"
                    },
                    {
                        "const": "delegation_inactive"
                    },
                    {
                        "const": "not_found"
                    },
                    {
                        "const": "method_not_allowed"
                    },
                    {
                        "const": "idempotency_conflict"
                    },
                    {
                        "const": "concurrent_update"
                    },
                    {
                        "const": "internal_error"
                    },
                    {
                        "const": "invalid_command"
                    },
                    {
                        "const": "authority_reference_required"
                    },
                    {
                        "const": "unknown_mechanism"
                    },
                    {
                        "const": "invalid_mechanism_config"
                    },
                    {
                        "const": "market_not_found"
                    },
                    {
                        "const": "commitment_not_found"
                    },
                    {
                        "const": "principal_not_authorized"
                    },
                    {
                        "const": "version_conflict"
                    },
                    {
                        "const": "invalid_market_transition"
                    },
                    {
                        "const": "invalid_commitment_transition"
                    },
                    {
                        "const": "actor_not_authorized"
                    },
                    {
                        "const": "capacity_exhausted"
                    }
                ],
                description: "Spec \u00A77.1: every error code a client can branch on."
            },
            RecordIntegrity: {
                type: "object",
                properties: {
                    algorithm: {
                        "const": "sha256-canonical-json-v1"
                    },
                    recordHash: {
                        type: "string",
                        pattern: "^sha256:[0-9a-f]{64}$"
                    },
                    stateReconstructed: {
                        type: "boolean"
                    }
                },
                required: [
                    "algorithm",
                    "recordHash",
                    "stateReconstructed"
                ]
            },
            MarketOutcome: {
                type: "object",
                properties: {
                    marketId: {
                        $ref: "#/components/schemas/PathIdentifier"
                    },
                    principalId: {
                        $ref: "#/components/schemas/Identifier"
                    },
                    bidReceipts: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/SealedBidReceipt"
                        },
                        description: "The principal's accepted sealed bids (amount-free)."
                    },
                    commitments: {
                        type: "array",
                        items: {
                            $ref: "#/components/schemas/Commitment"
                        },
                        description: "Commitments in which the principal is the participant or the creator."
                    }
                },
                required: [
                    "marketId",
                    "principalId",
                    "bidReceipts",
                    "commitments"
                ],
                description: "get_my_market_outcome (and GET /v1/markets/{marketId}/my-outcome): one principal's own view."
            },
            AuditKeyList: {
                type: "object",
                properties: {
                    keys: {
                        type: "array",
                        items: {
                            type: "object",
                            properties: {
                                keyId: {
                                    type: "string",
                                    description: "Lowercase hex of the first 16 bytes of SHA-256 over the raw public key."
                                },
                                publicKey: {
                                    type: "string",
                                    description: "The raw 32-byte Ed25519 public key, unpadded base64url."
                                },
                                activatedAtMs: {
                                    type: "number",
                                    description: "From when the key signs, ms since the epoch; 0 for a first key in force since the log began."
                                },
                                endorsement: {
                                    oneOf: [
                                        {
                                            type: "null"
                                        },
                                        {
                                            type: "string"
                                        }
                                    ],
                                    description: "The previous key's Ed25519 signature endorsing this one (unpadded base64url); null for the first key."
                                }
                            },
                            required: [
                                "keyId",
                                "publicKey",
                                "activatedAtMs",
                                "endorsement"
                            ]
                        }
                    }
                },
                required: [
                    "keys"
                ],
                description: "The reply body: `{ keys }`, exactly the history's entries (docs/proofs.md, \"Signing keys\")."
            },
            LogHead: {
                type: "object",
                properties: {
                    logId: {
                        type: "string",
                        description: "`shard-<n>`, or `partition-<p>` in a cluster."
                    },
                    treeSize: {
                        type: "number",
                        description: "Entries the tree holds."
                    },
                    rootHash: {
                        type: "string",
                        description: "MTH of the log's entries 1\u2026treeSize, 64 lowercase hex digits."
                    },
                    timeMs: {
                        type: "number",
                        description: "When it was signed, milliseconds since the Unix epoch."
                    },
                    keyId: {
                        type: "string",
                        description: "Which published key (GET /v1/audit/keys) signed it."
                    },
                    signature: {
                        type: "string",
                        description: "Ed25519 signature over the head's bytes, 128 lowercase hex digits."
                    }
                },
                required: [
                    "logId",
                    "treeSize",
                    "rootHash",
                    "timeMs",
                    "keyId",
                    "signature"
                ],
                description: "GET /v1/audit/logs/{logId}/head: a head signed now over the log's whole tree (docs/proofs.md, \"Signed heads\")."
            },
            LogInclusionProof: {
                type: "object",
                properties: {
                    leafIndex: {
                        type: "number"
                    },
                    treeSize: {
                        type: "number"
                    },
                    path: {
                        type: "array",
                        items: {
                            type: "string"
                        },
                        description: "RFC 9162 PATH, lowest node first, each 64 lowercase hex digits."
                    },
                    leafHash: {
                        type: "string",
                        description: "SHA-256(0x00 \u2016 entry payload), 64 lowercase hex digits: the leaf the path starts from."
                    },
                    entry: {
                        oneOf: [
                            {
                                type: "null"
                            },
                            {
                                type: "string"
                            }
                        ],
                        description: "The entry's payload (unpadded base64url) when the caller may see it, else null."
                    }
                },
                required: [
                    "leafIndex",
                    "treeSize",
                    "path",
                    "leafHash",
                    "entry"
                ],
                description: "GET /v1/audit/logs/{logId}/inclusion: leaf `leafIndex`'s audit path in the tree of `treeSize` entries."
            },
            LogConsistencyProof: {
                type: "object",
                properties: {
                    oldSize: {
                        type: "number"
                    },
                    newSize: {
                        type: "number"
                    },
                    path: {
                        type: "array",
                        items: {
                            type: "string"
                        },
                        description: "RFC 9162 PROOF, each 64 lowercase hex digits."
                    }
                },
                required: [
                    "oldSize",
                    "newSize",
                    "path"
                ],
                description: "GET /v1/audit/logs/{logId}/consistency: the tree of `oldSize` entries is a prefix of the tree of `newSize`."
            },
            ErrorBody: {
                type: "object",
                properties: {
                    error: {
                        type: "object",
                        properties: {
                            code: {
                                $ref: "#/components/schemas/ServiceErrorCode"
                            },
                            message: {
                                type: "string"
                            }
                        },
                        required: [
                            "code",
                            "message"
                        ]
                    }
                },
                required: [
                    "error"
                ],
                description: "Spec \u00A77: the body of every error response; a 503 while the service starts or stops carries `service_unavailable`."
            },
            ServiceErrorCode: {
                oneOf: [
                    {
                        "const": "invalid_request"
                    },
                    {
                        "const": "unauthenticated"
                    },
                    {
                        "const": "forbidden"
                    },
                    {
                        "const": "identity_conflict"
                    },
                    {
                        "const": "identity_not_found"
                    },
                    {
                        "const": "delegation_not_found"
                    },
                    {
                        "const": "delegation_conflict"
                    },
                    {
                        "const": "delegation_inactive"
                    },
                    {
                        "const": "not_found"
                    },
                    {
                        "const": "method_not_allowed"
                    },
                    {
                        "const": "idempotency_conflict"
                    },
                    {
                        "const": "concurrent_update"
                    },
                    {
                        "const": "internal_error"
                    },
                    {
                        "const": "invalid_command"
                    },
                    {
                        "const": "authority_reference_required"
                    },
                    {
                        "const": "unknown_mechanism"
                    },
                    {
                        "const": "invalid_mechanism_config"
                    },
                    {
                        "const": "market_not_found"
                    },
                    {
                        "const": "commitment_not_found"
                    },
                    {
                        "const": "principal_not_authorized"
                    },
                    {
                        "const": "version_conflict"
                    },
                    {
                        "const": "invalid_market_transition"
                    },
                    {
                        "const": "invalid_commitment_transition"
                    },
                    {
                        "const": "actor_not_authorized"
                    },
                    {
                        "const": "capacity_exhausted"
                    },
                    {
                        "const": "service_unavailable"
                    }
                ],
                description: "Every code a reply may carry: the spec's (\u00A77.1), plus the service's one extension,\n`service_unavailable` (503 with Retry-After) while the service starts or stops, before any command\ncan be taken (docs/errors.md)."
            }
        }
    },
    schemas: [
        {
            $ref: "#/components/schemas/HealthStatus"
        },
        {
            $ref: "#/components/schemas/CreateChallengeBody"
        },
        {
            $ref: "#/components/schemas/AuthenticationChallenge"
        },
        {
            $ref: "#/components/schemas/IssueTokenBody"
        },
        {
            $ref: "#/components/schemas/AuthenticationTokenGrant"
        },
        {
            $ref: "#/components/schemas/ProvisionIdentityBody"
        },
        {
            $ref: "#/components/schemas/ProvisionedIdentity"
        },
        {
            $ref: "#/components/schemas/IssueDelegationBody"
        },
        {
            $ref: "#/components/schemas/RevokeDelegationBody"
        },
        {
            $ref: "#/components/schemas/Delegation"
        },
        {
            $ref: "#/components/schemas/CreateMarketBody"
        },
        {
            $ref: "#/components/schemas/PublishMarketBody"
        },
        {
            $ref: "#/components/schemas/DirectClaimBody"
        },
        {
            $ref: "#/components/schemas/SealedBidBody"
        },
        {
            $ref: "#/components/schemas/CommitmentActionBody"
        },
        {
            $ref: "#/components/schemas/MarketResult"
        },
        {
            $ref: "#/components/schemas/MarketActionResult"
        },
        {
            $ref: "#/components/schemas/Market"
        },
        {
            $ref: "#/components/schemas/MarketRecord"
        },
        {
            $ref: "#/components/schemas/MarketOutcome"
        },
        {
            $ref: "#/components/schemas/AuditKeyList"
        },
        {
            $ref: "#/components/schemas/LogHead"
        },
        {
            $ref: "#/components/schemas/LogInclusionProof"
        },
        {
            $ref: "#/components/schemas/LogConsistencyProof"
        },
        {
            $ref: "#/components/schemas/ErrorBody"
        }
    ]
} as import("typia").IJsonSchemaCollection<"3.1">;
