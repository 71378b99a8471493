import * as __typia_transform__accessExpressionAsString from "typia/lib/internal/_accessExpressionAsString";
import * as __typia_transform__validateReport from "typia/lib/internal/_validateReport";
import * as __typia_transform__createStandardSchema from "typia/lib/internal/_createStandardSchema";
import * as __typia_transform__isTypeUint64 from "typia/lib/internal/_isTypeUint64";
import * as __typia_transform__isTypeInt64 from "typia/lib/internal/_isTypeInt64";
import type { CommitmentActionBody, DirectClaimBody, PublishMarketBody, SealedBidBody, UncheckedCreateMarketBody } from "@market-service/client/wire";
export const validateCreateMarketBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.marketId && (1 <= input.marketId.length && input.marketId.length <= 128 && RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.marketId)) && ("object" === typeof input.subject && null !== input.subject && _io1(input.subject, true && _exceptionable)) && ("object" === typeof input.mechanism && null !== input.mechanism && _io3(input.mechanism, true && _exceptionable)) && ("string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId))) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && (5 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["marketId", "subject", "mechanism", "commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _io1 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.schema && (1 <= input.schema.length && input.schema.length <= 256) && ("object" === typeof input.data && null !== input.data && false === Array.isArray(input.data) && _io2(input.data, true && _exceptionable)) && (2 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["schema", "data"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _io2 = (input: any, _exceptionable: boolean = true): boolean => Object.keys(input).every((key: any) => {
    const value = input[key];
    if (undefined === value)
        return true;
    return true;
}); const _io3 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.presetId && (1 <= input.presetId.length && input.presetId.length <= 128) && ("object" === typeof input.config && null !== input.config && false === Array.isArray(input.config) && _io2(input.config, true && _exceptionable)) && (2 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["presetId", "config"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["string" === typeof input.marketId && (1 <= input.marketId.length || _report(_exceptionable, {
        path: _path + ".marketId",
        expected: "string & MinLength<1>",
        value: input.marketId
    })) && (input.marketId.length <= 128 || _report(_exceptionable, {
        path: _path + ".marketId",
        expected: "string & MaxLength<128>",
        value: input.marketId
    })) && (RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.marketId) || _report(_exceptionable, {
        path: _path + ".marketId",
        expected: "string & Pattern<\"^(?!\\\\.\\\\.?$)[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.marketId
    })) || _report(_exceptionable, {
        path: _path + ".marketId",
        expected: "(string & MinLength<1> & MaxLength<128> & Pattern<\"^(?!\\\\.\\\\.?$)[^\\\\u0000-\\\\u001F\\\\u007F]+$\">)",
        value: input.marketId
    }), ("object" === typeof input.subject && null !== input.subject || _report(_exceptionable, {
        path: _path + ".subject",
        expected: "Subject",
        value: input.subject
    })) && _vo1(input.subject, _path + ".subject", true && _exceptionable) || _report(_exceptionable, {
        path: _path + ".subject",
        expected: "Subject",
        value: input.subject
    }), ("object" === typeof input.mechanism && null !== input.mechanism || _report(_exceptionable, {
        path: _path + ".mechanism",
        expected: "UncheckedMechanismSelection",
        value: input.mechanism
    })) && _vo3(input.mechanism, _path + ".mechanism", true && _exceptionable) || _report(_exceptionable, {
        path: _path + ".mechanism",
        expected: "UncheckedMechanismSelection",
        value: input.mechanism
    }), "string" === typeof input.commandId && (1 <= input.commandId.length || _report(_exceptionable, {
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
    }), undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MinLength<1>",
        value: input.authorityRef
    })) && (input.authorityRef.length <= 128 || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MaxLength<128>",
        value: input.authorityRef
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.authorityRef
    })) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "((string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">) | undefined)",
        value: input.authorityRef
    }), 5 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["marketId", "subject", "mechanism", "commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const _vo1 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["string" === typeof input.schema && (1 <= input.schema.length || _report(_exceptionable, {
        path: _path + ".schema",
        expected: "string & MinLength<1>",
        value: input.schema
    })) && (input.schema.length <= 256 || _report(_exceptionable, {
        path: _path + ".schema",
        expected: "string & MaxLength<256>",
        value: input.schema
    })) || _report(_exceptionable, {
        path: _path + ".schema",
        expected: "(string & MinLength<1> & MaxLength<256>)",
        value: input.schema
    }), ("object" === typeof input.data && null !== input.data && false === Array.isArray(input.data) || _report(_exceptionable, {
        path: _path + ".data",
        expected: "Record<string, unknown>",
        value: input.data
    })) && _vo2(input.data, _path + ".data", true && _exceptionable) || _report(_exceptionable, {
        path: _path + ".data",
        expected: "Record<string, unknown>",
        value: input.data
    }), 2 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["schema", "data"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const _vo2 = (input: any, _path: string, _exceptionable: boolean = true): boolean => [false === _exceptionable || Object.keys(input).map((key: any) => {
        const value = input[key];
        if (undefined === value)
            return true;
        return true;
    }).every((flag: boolean) => flag)].every((flag: boolean) => flag); const _vo3 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["string" === typeof input.presetId && (1 <= input.presetId.length || _report(_exceptionable, {
        path: _path + ".presetId",
        expected: "string & MinLength<1>",
        value: input.presetId
    })) && (input.presetId.length <= 128 || _report(_exceptionable, {
        path: _path + ".presetId",
        expected: "string & MaxLength<128>",
        value: input.presetId
    })) || _report(_exceptionable, {
        path: _path + ".presetId",
        expected: "(string & MinLength<1> & MaxLength<128>)",
        value: input.presetId
    }), ("object" === typeof input.config && null !== input.config && false === Array.isArray(input.config) || _report(_exceptionable, {
        path: _path + ".config",
        expected: "Record<string, unknown>",
        value: input.config
    })) && _vo2(input.config, _path + ".config", true && _exceptionable) || _report(_exceptionable, {
        path: _path + ".config",
        expected: "Record<string, unknown>",
        value: input.config
    }), 2 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["presetId", "config"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is UncheckedCreateMarketBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<UncheckedCreateMarketBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "UncheckedCreateMarketBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "UncheckedCreateMarketBody",
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
export const validatePublishMarketBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "number" === typeof input.expectedVersion && (__typia_transform__isTypeUint64._isTypeUint64(input.expectedVersion) && input.expectedVersion <= 9007199254740991 && 1 <= input.expectedVersion) && ("string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId))) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && (3 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["expectedVersion", "commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["number" === typeof input.expectedVersion && (__typia_transform__isTypeUint64._isTypeUint64(input.expectedVersion) || _report(_exceptionable, {
        path: _path + ".expectedVersion",
        expected: "number & Type<\"uint64\">",
        value: input.expectedVersion
    })) && (input.expectedVersion <= 9007199254740991 || _report(_exceptionable, {
        path: _path + ".expectedVersion",
        expected: "number & Maximum<9007199254740991>",
        value: input.expectedVersion
    })) && (1 <= input.expectedVersion || _report(_exceptionable, {
        path: _path + ".expectedVersion",
        expected: "number & Minimum<1>",
        value: input.expectedVersion
    })) || _report(_exceptionable, {
        path: _path + ".expectedVersion",
        expected: "(number & Type<\"uint64\"> & Maximum<9007199254740991> & Minimum<1>)",
        value: input.expectedVersion
    }), "string" === typeof input.commandId && (1 <= input.commandId.length || _report(_exceptionable, {
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
    }), undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MinLength<1>",
        value: input.authorityRef
    })) && (input.authorityRef.length <= 128 || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MaxLength<128>",
        value: input.authorityRef
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.authorityRef
    })) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "((string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">) | undefined)",
        value: input.authorityRef
    }), 3 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["expectedVersion", "commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is PublishMarketBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<PublishMarketBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "PublishMarketBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "PublishMarketBody",
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
export const validateDirectClaimBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => (undefined === input.expectedVersion || "number" === typeof input.expectedVersion && (__typia_transform__isTypeUint64._isTypeUint64(input.expectedVersion) && input.expectedVersion <= 9007199254740991)) && ("string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId))) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && (2 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["expectedVersion", "commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => [undefined === input.expectedVersion || "number" === typeof input.expectedVersion && (__typia_transform__isTypeUint64._isTypeUint64(input.expectedVersion) || _report(_exceptionable, {
        path: _path + ".expectedVersion",
        expected: "number & Type<\"uint64\">",
        value: input.expectedVersion
    })) && (input.expectedVersion <= 9007199254740991 || _report(_exceptionable, {
        path: _path + ".expectedVersion",
        expected: "number & Maximum<9007199254740991>",
        value: input.expectedVersion
    })) || _report(_exceptionable, {
        path: _path + ".expectedVersion",
        expected: "((number & Type<\"uint64\"> & Maximum<9007199254740991>) | undefined)",
        value: input.expectedVersion
    }), "string" === typeof input.commandId && (1 <= input.commandId.length || _report(_exceptionable, {
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
    }), undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MinLength<1>",
        value: input.authorityRef
    })) && (input.authorityRef.length <= 128 || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MaxLength<128>",
        value: input.authorityRef
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.authorityRef
    })) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "((string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">) | undefined)",
        value: input.authorityRef
    }), 2 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["expectedVersion", "commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is DirectClaimBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<DirectClaimBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "DirectClaimBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "DirectClaimBody",
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
export const validateSealedBidBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "number" === typeof input.amountMinor && (__typia_transform__isTypeInt64._isTypeInt64(input.amountMinor) && 1 <= input.amountMinor && input.amountMinor <= 9007199254740991) && ("string" === typeof input.currency && RegExp("^[A-Z]{3}$").test(input.currency)) && ("string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId))) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && (4 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["amountMinor", "currency", "commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["number" === typeof input.amountMinor && (__typia_transform__isTypeInt64._isTypeInt64(input.amountMinor) || _report(_exceptionable, {
        path: _path + ".amountMinor",
        expected: "number & Type<\"int64\">",
        value: input.amountMinor
    })) && (1 <= input.amountMinor || _report(_exceptionable, {
        path: _path + ".amountMinor",
        expected: "number & Minimum<1>",
        value: input.amountMinor
    })) && (input.amountMinor <= 9007199254740991 || _report(_exceptionable, {
        path: _path + ".amountMinor",
        expected: "number & Maximum<9007199254740991>",
        value: input.amountMinor
    })) || _report(_exceptionable, {
        path: _path + ".amountMinor",
        expected: "(number & Type<\"int64\"> & Minimum<1> & Maximum<9007199254740991>)",
        value: input.amountMinor
    }), "string" === typeof input.currency && (RegExp("^[A-Z]{3}$").test(input.currency) || _report(_exceptionable, {
        path: _path + ".currency",
        expected: "string & Pattern<\"^[A-Z]{3}$\">",
        value: input.currency
    })) || _report(_exceptionable, {
        path: _path + ".currency",
        expected: "(string & Pattern<\"^[A-Z]{3}$\">)",
        value: input.currency
    }), "string" === typeof input.commandId && (1 <= input.commandId.length || _report(_exceptionable, {
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
    }), undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MinLength<1>",
        value: input.authorityRef
    })) && (input.authorityRef.length <= 128 || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MaxLength<128>",
        value: input.authorityRef
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.authorityRef
    })) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "((string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">) | undefined)",
        value: input.authorityRef
    }), 4 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["amountMinor", "currency", "commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is SealedBidBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<SealedBidBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "SealedBidBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "SealedBidBody",
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
export const validateCommitmentActionBody = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId)) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && (2 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
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
    }), undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MinLength<1>",
        value: input.authorityRef
    })) && (input.authorityRef.length <= 128 || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & MaxLength<128>",
        value: input.authorityRef
    })) && (RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "string & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">",
        value: input.authorityRef
    })) || _report(_exceptionable, {
        path: _path + ".authorityRef",
        expected: "((string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">) | undefined)",
        value: input.authorityRef
    }), 2 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["commandId", "principalId", "authorityRef"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is CommitmentActionBody => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<CommitmentActionBody> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "CommitmentActionBody",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "CommitmentActionBody",
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
