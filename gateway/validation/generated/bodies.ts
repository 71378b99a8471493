import * as __typia_transform__accessExpressionAsString from "typia/lib/internal/_accessExpressionAsString";
import * as __typia_transform__validateReport from "typia/lib/internal/_validateReport";
import * as __typia_transform__createStandardSchema from "typia/lib/internal/_createStandardSchema";
import * as __typia_transform__isUniqueItems from "typia/lib/internal/_isUniqueItems";
import * as __typia_transform__isFormatDateTime from "typia/lib/internal/_isFormatDateTime";
import type { CreateChallengeBody, IssueDelegationBody, IssueTokenBody, ProvisionIdentityBody, RevokeDelegationBody, } from "@market-service/client/wire";
export const validateProvisionIdentityBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId)) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && ("string" === typeof input.actorId && (1 <= input.actorId.length && input.actorId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.actorId))) && ("string" === typeof input.keyId && (1 <= input.keyId.length && input.keyId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.keyId))) && ("string" === typeof input.publicKey && (43 <= input.publicKey.length && input.publicKey.length <= 43 && RegExp("^[A-Za-z0-9_-]{43}$").test(input.publicKey))) && (5 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["commandId", "principalId", "actorId", "keyId", "publicKey"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["string" === typeof input.commandId && (1 <= input.commandId.length || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "string & MinLength<1>",
        value: input.commandId
    })) && (input.commandId.length <= 128 || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "string & MaxLength<128>",
        value: input.commandId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId) || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.commandId
    })) || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.commandId
    }), "string" === typeof input.principalId && (1 <= input.principalId.length || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "string & MinLength<1>",
        value: input.principalId
    })) && (input.principalId.length <= 128 || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "string & MaxLength<128>",
        value: input.principalId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId) || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.principalId
    })) || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.principalId
    }), "string" === typeof input.actorId && (1 <= input.actorId.length || _report(_exceptionable, {
        path: _path + ".actorId",
        expected: "string & MinLength<1>",
        value: input.actorId
    })) && (input.actorId.length <= 128 || _report(_exceptionable, {
        path: _path + ".actorId",
        expected: "string & MaxLength<128>",
        value: input.actorId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.actorId) || _report(_exceptionable, {
        path: _path + ".actorId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.actorId
    })) || _report(_exceptionable, {
        path: _path + ".actorId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.actorId
    }), "string" === typeof input.keyId && (1 <= input.keyId.length || _report(_exceptionable, {
        path: _path + ".keyId",
        expected: "string & MinLength<1>",
        value: input.keyId
    })) && (input.keyId.length <= 128 || _report(_exceptionable, {
        path: _path + ".keyId",
        expected: "string & MaxLength<128>",
        value: input.keyId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.keyId) || _report(_exceptionable, {
        path: _path + ".keyId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.keyId
    })) || _report(_exceptionable, {
        path: _path + ".keyId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.keyId
    }), "string" === typeof input.publicKey && (43 <= input.publicKey.length || _report(_exceptionable, {
        path: _path + ".publicKey",
        expected: "string & MinLength<43>",
        value: input.publicKey
    })) && (input.publicKey.length <= 43 || _report(_exceptionable, {
        path: _path + ".publicKey",
        expected: "string & MaxLength<43>",
        value: input.publicKey
    })) && (RegExp("^[A-Za-z0-9_-]{43}$").test(input.publicKey) || _report(_exceptionable, {
        path: _path + ".publicKey",
        expected: "string & Pattern<\"^[A-Za-z0-9_-]{43}$\">",
        value: input.publicKey
    })) || _report(_exceptionable, {
        path: _path + ".publicKey",
        expected: "(string & MinLength<43> & MaxLength<43> & Pattern<\"^[A-Za-z0-9_-]{43}$\">)",
        value: input.publicKey
    }), 5 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["commandId", "principalId", "actorId", "keyId", "publicKey"].some((prop: any) => key === prop))
            return true;
        const value = input[key];
        if (undefined === value)
            return true;
        return _report(_exceptionable, {
            path: _path + __typia_transform__accessExpressionAsString._accessExpressionAsString(key),
            expected: "undefined",
            value: value,
            description: [
                `The property \`${key}\` is not defined in the object type.`,
                "",
                "Please remove the property next time."
            ].join("\n")
        });
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is ProvisionIdentityBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<ProvisionIdentityBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "ProvisionIdentityBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "ProvisionIdentityBody",
            value: input
        }))(input, "$input", true);
        const success = 0 === errors.length;
        return success ? {
            success,
            data: input
        } : {
            success,
            errors,
            data: input
        } as any;
    }
    return {
        success: true,
        data: input
    } as any;
}); })();
export const validateIssueDelegationBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId)) && ("string" === typeof input.delegationId && (1 <= input.delegationId.length && input.delegationId.length <= 128 && RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.delegationId))) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && ("string" === typeof input.delegateActorId && (1 <= input.delegateActorId.length && input.delegateActorId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.delegateActorId))) && (Array.isArray(input.scopes) && (1 <= input.scopes.length && __typia_transform__isUniqueItems._isUniqueItems(input.scopes) && input.scopes.length <= 7 && input.scopes.every((elem: any, _index1: number) => "market:create" === elem || "market:publish" === elem || "market:claim" === elem || "market:bid" === elem || "commitment:confirm" === elem || "commitment:decline" === elem || "credential:issue" === elem))) && (undefined === input.validUntil || "string" === typeof input.validUntil && __typia_transform__isFormatDateTime._isFormatDateTime(input.validUntil)) && (5 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["commandId", "delegationId", "principalId", "delegateActorId", "scopes", "validUntil"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["string" === typeof input.commandId && (1 <= input.commandId.length || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "string & MinLength<1>",
        value: input.commandId
    })) && (input.commandId.length <= 128 || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "string & MaxLength<128>",
        value: input.commandId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId) || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.commandId
    })) || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.commandId
    }), "string" === typeof input.delegationId && (1 <= input.delegationId.length || _report(_exceptionable, {
        path: _path + ".delegationId",
        expected: "string & MinLength<1>",
        value: input.delegationId
    })) && (input.delegationId.length <= 128 || _report(_exceptionable, {
        path: _path + ".delegationId",
        expected: "string & MaxLength<128>",
        value: input.delegationId
    })) && (RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.delegationId) || _report(_exceptionable, {
        path: _path + ".delegationId",
        expected: "string & Pattern<\"^(?!\\\\.\\\\.?$)[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.delegationId
    })) || _report(_exceptionable, {
        path: _path + ".delegationId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^(?!\\\\.\\\\.?$)[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.delegationId
    }), "string" === typeof input.principalId && (1 <= input.principalId.length || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "string & MinLength<1>",
        value: input.principalId
    })) && (input.principalId.length <= 128 || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "string & MaxLength<128>",
        value: input.principalId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId) || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.principalId
    })) || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.principalId
    }), "string" === typeof input.delegateActorId && (1 <= input.delegateActorId.length || _report(_exceptionable, {
        path: _path + ".delegateActorId",
        expected: "string & MinLength<1>",
        value: input.delegateActorId
    })) && (input.delegateActorId.length <= 128 || _report(_exceptionable, {
        path: _path + ".delegateActorId",
        expected: "string & MaxLength<128>",
        value: input.delegateActorId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.delegateActorId) || _report(_exceptionable, {
        path: _path + ".delegateActorId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.delegateActorId
    })) || _report(_exceptionable, {
        path: _path + ".delegateActorId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.delegateActorId
    }), (Array.isArray(input.scopes) || _report(_exceptionable, {
        path: _path + ".scopes",
        expected: "(Array<AuthorityScope> & MinItems<1> & UniqueItems<true> & MaxItems<7>)",
        value: input.scopes
    })) && ((1 <= input.scopes.length || _report(_exceptionable, {
        path: _path + ".scopes",
        expected: "Array<> & MinItems<1>",
        value: input.scopes
    })) && (__typia_transform__isUniqueItems._isUniqueItems(input.scopes) || _report(_exceptionable, {
        path: _path + ".scopes",
        expected: "Array<> & UniqueItems<true>",
        value: input.scopes
    })) && (input.scopes.length <= 7 || _report(_exceptionable, {
        path: _path + ".scopes",
        expected: "Array<> & MaxItems<7>",
        value: input.scopes
    })) && input.scopes.map((elem: any, _index2: number) => "market:create" === elem || "market:publish" === elem || "market:claim" === elem || "market:bid" === elem || "commitment:confirm" === elem || "commitment:decline" === elem || "credential:issue" === elem || _report(_exceptionable, {
        path: _path + ".scopes[" + _index2 + "]",
        expected: "(\"commitment:confirm\" | \"commitment:decline\" | \"credential:issue\" | \"market:bid\" | \"market:claim\" | \"market:create\" | \"market:publish\")",
        value: elem
    })).every((flag: boolean) => flag)) || _report(_exceptionable, {
        path: _path + ".scopes",
        expected: "(Array<AuthorityScope> & MinItems<1> & UniqueItems<true> & MaxItems<7>)",
        value: input.scopes
    }), undefined === input.validUntil || "string" === typeof input.validUntil && (__typia_transform__isFormatDateTime._isFormatDateTime(input.validUntil) || _report(_exceptionable, {
        path: _path + ".validUntil",
        expected: "string & Format<\"date-time\">",
        value: input.validUntil
    })) || _report(_exceptionable, {
        path: _path + ".validUntil",
        expected: "((string & Format<\"date-time\">) | undefined)",
        value: input.validUntil
    }), 5 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["commandId", "delegationId", "principalId", "delegateActorId", "scopes", "validUntil"].some((prop: any) => key === prop))
            return true;
        const value = input[key];
        if (undefined === value)
            return true;
        return _report(_exceptionable, {
            path: _path + __typia_transform__accessExpressionAsString._accessExpressionAsString(key),
            expected: "undefined",
            value: value,
            description: [
                `The property \`${key}\` is not defined in the object type.`,
                "",
                "Please remove the property next time."
            ].join("\n")
        });
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is IssueDelegationBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<IssueDelegationBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "IssueDelegationBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "IssueDelegationBody",
            value: input
        }))(input, "$input", true);
        const success = 0 === errors.length;
        return success ? {
            success,
            data: input
        } : {
            success,
            errors,
            data: input
        } as any;
    }
    return {
        success: true,
        data: input
    } as any;
}); })();
export const validateRevokeDelegationBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId)) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (2 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["commandId", "principalId"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["string" === typeof input.commandId && (1 <= input.commandId.length || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "string & MinLength<1>",
        value: input.commandId
    })) && (input.commandId.length <= 128 || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "string & MaxLength<128>",
        value: input.commandId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId) || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.commandId
    })) || _report(_exceptionable, {
        path: _path + ".commandId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.commandId
    }), "string" === typeof input.principalId && (1 <= input.principalId.length || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "string & MinLength<1>",
        value: input.principalId
    })) && (input.principalId.length <= 128 || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "string & MaxLength<128>",
        value: input.principalId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId) || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.principalId
    })) || _report(_exceptionable, {
        path: _path + ".principalId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.principalId
    }), 2 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["commandId", "principalId"].some((prop: any) => key === prop))
            return true;
        const value = input[key];
        if (undefined === value)
            return true;
        return _report(_exceptionable, {
            path: _path + __typia_transform__accessExpressionAsString._accessExpressionAsString(key),
            expected: "undefined",
            value: value,
            description: [
                `The property \`${key}\` is not defined in the object type.`,
                "",
                "Please remove the property next time."
            ].join("\n")
        });
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is RevokeDelegationBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<RevokeDelegationBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "RevokeDelegationBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "RevokeDelegationBody",
            value: input
        }))(input, "$input", true);
        const success = 0 === errors.length;
        return success ? {
            success,
            data: input
        } : {
            success,
            errors,
            data: input
        } as any;
    }
    return {
        success: true,
        data: input
    } as any;
}); })();
export const validateCreateChallengeBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.actorId && (1 <= input.actorId.length && input.actorId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.actorId)) && ("string" === typeof input.keyId && (1 <= input.keyId.length && input.keyId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.keyId))) && (2 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["actorId", "keyId"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["string" === typeof input.actorId && (1 <= input.actorId.length || _report(_exceptionable, {
        path: _path + ".actorId",
        expected: "string & MinLength<1>",
        value: input.actorId
    })) && (input.actorId.length <= 128 || _report(_exceptionable, {
        path: _path + ".actorId",
        expected: "string & MaxLength<128>",
        value: input.actorId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.actorId) || _report(_exceptionable, {
        path: _path + ".actorId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.actorId
    })) || _report(_exceptionable, {
        path: _path + ".actorId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.actorId
    }), "string" === typeof input.keyId && (1 <= input.keyId.length || _report(_exceptionable, {
        path: _path + ".keyId",
        expected: "string & MinLength<1>",
        value: input.keyId
    })) && (input.keyId.length <= 128 || _report(_exceptionable, {
        path: _path + ".keyId",
        expected: "string & MaxLength<128>",
        value: input.keyId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.keyId) || _report(_exceptionable, {
        path: _path + ".keyId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.keyId
    })) || _report(_exceptionable, {
        path: _path + ".keyId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.keyId
    }), 2 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["actorId", "keyId"].some((prop: any) => key === prop))
            return true;
        const value = input[key];
        if (undefined === value)
            return true;
        return _report(_exceptionable, {
            path: _path + __typia_transform__accessExpressionAsString._accessExpressionAsString(key),
            expected: "undefined",
            value: value,
            description: [
                `The property \`${key}\` is not defined in the object type.`,
                "",
                "Please remove the property next time."
            ].join("\n")
        });
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is CreateChallengeBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<CreateChallengeBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "CreateChallengeBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "CreateChallengeBody",
            value: input
        }))(input, "$input", true);
        const success = 0 === errors.length;
        return success ? {
            success,
            data: input
        } : {
            success,
            errors,
            data: input
        } as any;
    }
    return {
        success: true,
        data: input
    } as any;
}); })();
export const validateIssueTokenBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.challengeId && (1 <= input.challengeId.length && input.challengeId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.challengeId)) && ("string" === typeof input.nonce && (1 <= input.nonce.length && input.nonce.length <= 64)) && ("string" === typeof input.signature && (1 <= input.signature.length && input.signature.length <= 128)) && (3 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["challengeId", "nonce", "signature"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["string" === typeof input.challengeId && (1 <= input.challengeId.length || _report(_exceptionable, {
        path: _path + ".challengeId",
        expected: "string & MinLength<1>",
        value: input.challengeId
    })) && (input.challengeId.length <= 128 || _report(_exceptionable, {
        path: _path + ".challengeId",
        expected: "string & MaxLength<128>",
        value: input.challengeId
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.challengeId) || _report(_exceptionable, {
        path: _path + ".challengeId",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.challengeId
    })) || _report(_exceptionable, {
        path: _path + ".challengeId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.challengeId
    }), "string" === typeof input.nonce && (1 <= input.nonce.length || _report(_exceptionable, {
        path: _path + ".nonce",
        expected: "string & MinLength<1>",
        value: input.nonce
    })) && (input.nonce.length <= 64 || _report(_exceptionable, {
        path: _path + ".nonce",
        expected: "string & MaxLength<64>",
        value: input.nonce
    })) || _report(_exceptionable, {
        path: _path + ".nonce",
        expected: "(string & MinLength<1> & MaxLength<64>)",
        value: input.nonce
    }), "string" === typeof input.signature && (1 <= input.signature.length || _report(_exceptionable, {
        path: _path + ".signature",
        expected: "string & MinLength<1>",
        value: input.signature
    })) && (input.signature.length <= 128 || _report(_exceptionable, {
        path: _path + ".signature",
        expected: "string & MaxLength<128>",
        value: input.signature
    })) || _report(_exceptionable, {
        path: _path + ".signature",
        expected: "(string & MinLength<1> & MaxLength<128>)",
        value: input.signature
    }), 3 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["challengeId", "nonce", "signature"].some((prop: any) => key === prop))
            return true;
        const value = input[key];
        if (undefined === value)
            return true;
        return _report(_exceptionable, {
            path: _path + __typia_transform__accessExpressionAsString._accessExpressionAsString(key),
            expected: "undefined",
            value: value,
            description: [
                `The property \`${key}\` is not defined in the object type.`,
                "",
                "Please remove the property next time."
            ].join("\n")
        });
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is IssueTokenBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<IssueTokenBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "IssueTokenBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "IssueTokenBody",
            value: input
        }))(input, "$input", true);
        const success = 0 === errors.length;
        return success ? {
            success,
            data: input
        } : {
            success,
            errors,
            data: input
        } as any;
    }
    return {
        success: true,
        data: input
    } as any;
}); })();
