import * as __typia_transform__accessExpressionAsString from "typia/lib/internal/_accessExpressionAsString";
import * as __typia_transform__validateReport from "typia/lib/internal/_validateReport";
import * as __typia_transform__createStandardSchema from "typia/lib/internal/_createStandardSchema";
import * as __typia_transform__isTypeUint64 from "typia/lib/internal/_isTypeUint64";
import * as __typia_transform__isTypeInt64 from "typia/lib/internal/_isTypeInt64";
import type { ConfirmCommitmentInput, CreateMarketInput, DeclineCommitmentInput, GetMarketInput, GetMarketRecordInput, GetMyMarketOutcomeInput, PublishMarketInput, SubmitDirectClaimInput, SubmitSealedBidInput, } from "../tool-inputs.js";
import type { Market, MarketActionResult, MarketOutcome, MarketRecord, MarketResult, UncheckedCreateMarketBody } from "@market-service/client/wire";
export const validateCreateMarketInput = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.marketId && (1 <= input.marketId.length && input.marketId.length <= 128 && RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.marketId)) && ("object" === typeof input.subject && null !== input.subject && _io1(input.subject, true && _exceptionable)) && ("object" === typeof input.mechanism && null !== input.mechanism && _io3(input.mechanism, true && _exceptionable)) && ("string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId))) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && (5 === Object.keys(input).length || Object.keys(input).every((key: any) => {
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
export const validatePublishMarketInput = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "number" === typeof input.expectedVersion && (__typia_transform__isTypeUint64._isTypeUint64(input.expectedVersion) && input.expectedVersion <= 9007199254740991 && 1 <= input.expectedVersion) && ("string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId))) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && ("string" === typeof input.marketId && (1 <= input.marketId.length && input.marketId.length <= 128 && RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.marketId))) && (4 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["expectedVersion", "commandId", "principalId", "authorityRef", "marketId"].some((prop: any) => key === prop))
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
    }), "string" === typeof input.marketId && (1 <= input.marketId.length || _report(_exceptionable, {
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
    }), 4 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["expectedVersion", "commandId", "principalId", "authorityRef", "marketId"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is PublishMarketInput => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<PublishMarketInput> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "PublishMarketInput",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "PublishMarketInput",
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
export const validateSubmitDirectClaimInput = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => (undefined === input.expectedVersion || "number" === typeof input.expectedVersion && (__typia_transform__isTypeUint64._isTypeUint64(input.expectedVersion) && input.expectedVersion <= 9007199254740991)) && ("string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId))) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && ("string" === typeof input.marketId && (1 <= input.marketId.length && input.marketId.length <= 128 && RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.marketId))) && (3 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["expectedVersion", "commandId", "principalId", "authorityRef", "marketId"].some((prop: any) => key === prop))
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
    }), "string" === typeof input.marketId && (1 <= input.marketId.length || _report(_exceptionable, {
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
    }), 3 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["expectedVersion", "commandId", "principalId", "authorityRef", "marketId"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is SubmitDirectClaimInput => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<SubmitDirectClaimInput> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "SubmitDirectClaimInput",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "SubmitDirectClaimInput",
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
export const validateSubmitSealedBidInput = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "number" === typeof input.amountMinor && (__typia_transform__isTypeInt64._isTypeInt64(input.amountMinor) && 1 <= input.amountMinor && input.amountMinor <= 9007199254740991) && ("string" === typeof input.currency && RegExp("^[A-Z]{3}$").test(input.currency)) && ("string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId))) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && ("string" === typeof input.marketId && (1 <= input.marketId.length && input.marketId.length <= 128 && RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.marketId))) && (5 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["amountMinor", "currency", "commandId", "principalId", "authorityRef", "marketId"].some((prop: any) => key === prop))
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
    }), "string" === typeof input.marketId && (1 <= input.marketId.length || _report(_exceptionable, {
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
    }), 5 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["amountMinor", "currency", "commandId", "principalId", "authorityRef", "marketId"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is SubmitSealedBidInput => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<SubmitSealedBidInput> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "SubmitSealedBidInput",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "SubmitSealedBidInput",
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
export const validateConfirmCommitmentInput = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId)) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && ("string" === typeof input.commitmentId && (1 <= input.commitmentId.length && input.commitmentId.length <= 1024)) && (3 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["commandId", "principalId", "authorityRef", "commitmentId"].some((prop: any) => key === prop))
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
    }), "string" === typeof input.commitmentId && (1 <= input.commitmentId.length || _report(_exceptionable, {
        path: _path + ".commitmentId",
        expected: "string & MinLength<1>",
        value: input.commitmentId
    })) && (input.commitmentId.length <= 1024 || _report(_exceptionable, {
        path: _path + ".commitmentId",
        expected: "string & MaxLength<1024>",
        value: input.commitmentId
    })) || _report(_exceptionable, {
        path: _path + ".commitmentId",
        expected: "(string & MinLength<1> & MaxLength<1024>)",
        value: input.commitmentId
    }), 3 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["commandId", "principalId", "authorityRef", "commitmentId"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is ConfirmCommitmentInput => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<ConfirmCommitmentInput> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "ConfirmCommitmentInput",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "ConfirmCommitmentInput",
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
export const validateDeclineCommitmentInput = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.commandId && (1 <= input.commandId.length && input.commandId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.commandId)) && ("string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && ("string" === typeof input.commitmentId && (1 <= input.commitmentId.length && input.commitmentId.length <= 1024)) && (3 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["commandId", "principalId", "authorityRef", "commitmentId"].some((prop: any) => key === prop))
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
    }), "string" === typeof input.commitmentId && (1 <= input.commitmentId.length || _report(_exceptionable, {
        path: _path + ".commitmentId",
        expected: "string & MinLength<1>",
        value: input.commitmentId
    })) && (input.commitmentId.length <= 1024 || _report(_exceptionable, {
        path: _path + ".commitmentId",
        expected: "string & MaxLength<1024>",
        value: input.commitmentId
    })) || _report(_exceptionable, {
        path: _path + ".commitmentId",
        expected: "(string & MinLength<1> & MaxLength<1024>)",
        value: input.commitmentId
    }), 3 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["commandId", "principalId", "authorityRef", "commitmentId"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is DeclineCommitmentInput => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<DeclineCommitmentInput> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "DeclineCommitmentInput",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "DeclineCommitmentInput",
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
export const validateGetMarketInput = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.marketId && (1 <= input.marketId.length && input.marketId.length <= 128 && RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.marketId)) && (1 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["marketId"].some((prop: any) => key === prop))
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
    }), 1 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["marketId"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is GetMarketInput => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<GetMarketInput> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "GetMarketInput",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "GetMarketInput",
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
export const validateGetMarketRecordInput = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.marketId && (1 <= input.marketId.length && input.marketId.length <= 128 && RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.marketId)) && (1 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["marketId"].some((prop: any) => key === prop))
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
    }), 1 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["marketId"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is GetMarketRecordInput => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<GetMarketRecordInput> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "GetMarketRecordInput",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "GetMarketRecordInput",
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
export const validateGetMyMarketOutcomeInput = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => (undefined === input.principalId || "string" === typeof input.principalId && (1 <= input.principalId.length && input.principalId.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.principalId))) && (undefined === input.authorityRef || "string" === typeof input.authorityRef && (1 <= input.authorityRef.length && input.authorityRef.length <= 128 && RegExp("^[^\\u0000-\\u001F\\u007F]+$").test(input.authorityRef))) && ("string" === typeof input.marketId && (1 <= input.marketId.length && input.marketId.length <= 128 && RegExp("^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$").test(input.marketId))) && (1 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["principalId", "authorityRef", "marketId"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => [undefined === input.principalId || "string" === typeof input.principalId && (1 <= input.principalId.length || _report(_exceptionable, {
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
        expected: "((string & MinLength<1> & MaxLength<128> & Pattern<\"^[^\\\\u0000-\\\\u001F\\\\u007F]+$\">) | undefined)",
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
    }), "string" === typeof input.marketId && (1 <= input.marketId.length || _report(_exceptionable, {
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
    }), 1 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["principalId", "authorityRef", "marketId"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is GetMyMarketOutcomeInput => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<GetMyMarketOutcomeInput> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "GetMyMarketOutcomeInput",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "GetMyMarketOutcomeInput",
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
export const createMarketInputSchema = {
    description: "POST /v1/markets",
    type: "object",
    properties: {
        marketId: {
            $ref: "#/$defs/PathIdentifier"
        },
        subject: {
            $ref: "#/$defs/Subject"
        },
        mechanism: {
            $ref: "#/$defs/MechanismSelectionInput"
        },
        commandId: {
            description: "Actor-scoped idempotency key.",
            $ref: "#/$defs/Identifier"
        },
        principalId: {
            description: "Principal the authenticated actor represents.",
            $ref: "#/$defs/Identifier"
        },
        authorityRef: {
            description: "Delegation id; required when the actor acts for another principal.",
            $ref: "#/$defs/Identifier"
        }
    },
    required: [
        "marketId",
        "subject",
        "mechanism",
        "commandId",
        "principalId"
    ],
    additionalProperties: false,
    $defs: {
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        },
        Subject: {
            description: "Spec \u00A72.1 Subject: `data` is any JSON object; the gateway bounds its size and nesting depth.",
            type: "object",
            properties: {
                schema: {
                    description: "Client-chosen versioned identifier of the data shape, e.g. `table-booking.v2`.",
                    type: "string",
                    minLength: 1,
                    maxLength: 256
                },
                data: {
                    description: "Any JSON object; additional members allowed.",
                    $ref: "#/$defs/Recordstringunknown"
                }
            },
            required: [
                "schema",
                "data"
            ]
        },
        Recordstringunknown: {
            description: "Construct a type with a set of properties K of type T",
            type: "object",
            properties: {},
            required: [],
            additionalProperties: {}
        },
        MechanismSelectionInput: {
            description: "The allocation mechanism and its configuration (\u00A72.4), discriminated by `presetId`: each preset\nwith its own config type. The service answers another preset id with 422 `unknown_mechanism` and a\nconfig that does not fit its preset with 422 `invalid_mechanism_config`.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimSelectionInput"
                },
                {
                    $ref: "#/$defs/SealedAuctionSelectionInput"
                }
            ],
            "x-discriminator": {
                propertyName: "presetId",
                mapping: {
                    "direct-claim.v1": "#/$defs/DirectClaimSelectionInput",
                    "sealed-forward-auction.v1": "#/$defs/SealedAuctionSelectionInput"
                }
            }
        },
        DirectClaimSelectionInput: {
            description: "direct-claim.v1 as a client selects it: first-come claims.",
            type: "object",
            properties: {
                presetId: {
                    description: "`direct-claim.v1`: first-come claims.",
                    type: "string",
                    "enum": [
                        "direct-claim.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/DirectClaimConfigInput"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        DirectClaimConfigInput: {
            description: "direct-claim.v1 configuration as a client sends it, discriminated by `confirmation` (\u00A72.4).\nWith `none` an explicit `holdDurationSeconds` must be 0 and is removed by normalization.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimConfigInputWithoutHold"
                },
                {
                    $ref: "#/$defs/DirectClaimConfigWithHold"
                }
            ]
        },
        DirectClaimConfigInputWithoutHold: {
            type: "object",
            properties: {
                capacity: {
                    description: "Number of successful commitments the market can allocate.",
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    type: "string",
                    "enum": [
                        "none"
                    ]
                },
                holdDurationSeconds: {
                    type: "number",
                    "enum": [
                        0
                    ]
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
            description: "DirectClaimPricing, discriminated by `mode`.",
            anyOf: [
                {
                    $ref: "#/$defs/FreePricing"
                },
                {
                    $ref: "#/$defs/PostedPricing"
                }
            ],
            "x-discriminator": {
                propertyName: "mode",
                mapping: {
                    free: "#/$defs/FreePricing",
                    posted: "#/$defs/PostedPricing"
                }
            }
        },
        FreePricing: {
            type: "object",
            properties: {
                mode: {
                    type: "string",
                    "enum": [
                        "free"
                    ]
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
                    type: "string",
                    "enum": [
                        "posted"
                    ]
                },
                amountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "mode",
                "amountMinor",
                "currency"
            ]
        },
        PositiveAmountMinor: {
            description: "Amounts in minor currency units that must be at least 1 (bids, posted prices, reserves).",
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        Currency: {
            type: "string",
            pattern: "^[A-Z]{3}$"
        },
        DirectClaimConfigWithHold: {
            type: "object",
            properties: {
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    description: "Principals that must confirm before the commitment is final.",
                    type: "string",
                    "enum": [
                        "creator",
                        "participant",
                        "both"
                    ]
                },
                holdDurationSeconds: {
                    description: "Confirmation period before expiry.",
                    $ref: "#/$defs/PositiveUint32"
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
            description: "sealed-forward-auction.v1 as a client selects it: a sealed second-price auction.",
            type: "object",
            properties: {
                presetId: {
                    description: "`sealed-forward-auction.v1`: a sealed second-price auction.",
                    type: "string",
                    "enum": [
                        "sealed-forward-auction.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/SealedAuctionConfig"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        SealedAuctionConfig: {
            description: "sealed-forward-auction.v1 configuration (\u00A72.4); normalization rewrites `closesAt` to UTC milliseconds.",
            type: "object",
            properties: {
                currency: {
                    $ref: "#/$defs/Currency"
                },
                reserveAmountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                closesAt: {
                    description: "Fixed close; must still be in the future when the draft is published.",
                    $ref: "#/$defs/DateTime"
                },
                holdDurationSeconds: {
                    description: "Winner confirmation period after resolution.",
                    $ref: "#/$defs/PositiveUint32"
                }
            },
            required: [
                "currency",
                "closesAt",
                "holdDurationSeconds"
            ]
        },
        DateTime: {
            description: "RFC 3339 timestamp. Values the service emits are always `Date.prototype.toISOString()` form.",
            type: "string",
            format: "date-time"
        },
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const publishMarketInputSchema = {
    description: "publish_market",
    type: "object",
    properties: {
        expectedVersion: {
            description: "The current draft version.",
            $ref: "#/$defs/PositiveSafeUint64"
        },
        commandId: {
            description: "Actor-scoped idempotency key.",
            $ref: "#/$defs/Identifier"
        },
        principalId: {
            description: "Principal the authenticated actor represents.",
            $ref: "#/$defs/Identifier"
        },
        authorityRef: {
            description: "Delegation id; required when the actor acts for another principal.",
            $ref: "#/$defs/Identifier"
        },
        marketId: {
            description: "Id of the market, as chosen by its creator.",
            $ref: "#/$defs/PathIdentifier"
        }
    },
    required: [
        "expectedVersion",
        "commandId",
        "principalId",
        "marketId"
    ],
    additionalProperties: false,
    $defs: {
        PositiveSafeUint64: {
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const submitDirectClaimInputSchema = {
    description: "submit_direct_claim",
    type: "object",
    properties: {
        expectedVersion: {
            description: "Omit or 0 for server arrival order; otherwise must equal the current market version.",
            $ref: "#/$defs/SafeUint64"
        },
        commandId: {
            description: "Actor-scoped idempotency key.",
            $ref: "#/$defs/Identifier"
        },
        principalId: {
            description: "Principal the authenticated actor represents.",
            $ref: "#/$defs/Identifier"
        },
        authorityRef: {
            description: "Delegation id; required when the actor acts for another principal.",
            $ref: "#/$defs/Identifier"
        },
        marketId: {
            description: "Id of the market, as chosen by its creator.",
            $ref: "#/$defs/PathIdentifier"
        }
    },
    required: [
        "commandId",
        "principalId",
        "marketId"
    ],
    additionalProperties: false,
    $defs: {
        SafeUint64: {
            description: "uint64 restricted to safe integers: larger values are rejected, never rounded.",
            type: "integer",
            minimum: 0,
            maximum: 9007199254740991
        },
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const submitSealedBidInputSchema = {
    description: "submit_sealed_bid",
    type: "object",
    properties: {
        amountMinor: {
            $ref: "#/$defs/PositiveAmountMinor"
        },
        currency: {
            $ref: "#/$defs/Currency"
        },
        commandId: {
            description: "Actor-scoped idempotency key.",
            $ref: "#/$defs/Identifier"
        },
        principalId: {
            description: "Principal the authenticated actor represents.",
            $ref: "#/$defs/Identifier"
        },
        authorityRef: {
            description: "Delegation id; required when the actor acts for another principal.",
            $ref: "#/$defs/Identifier"
        },
        marketId: {
            description: "Id of the market, as chosen by its creator.",
            $ref: "#/$defs/PathIdentifier"
        }
    },
    required: [
        "amountMinor",
        "currency",
        "commandId",
        "principalId",
        "marketId"
    ],
    additionalProperties: false,
    $defs: {
        PositiveAmountMinor: {
            description: "Amounts in minor currency units that must be at least 1 (bids, posted prices, reserves).",
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        Currency: {
            type: "string",
            pattern: "^[A-Z]{3}$"
        },
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const confirmCommitmentInputSchema = {
    description: "confirm_commitment",
    type: "object",
    properties: {
        commandId: {
            description: "Actor-scoped idempotency key.",
            $ref: "#/$defs/Identifier"
        },
        principalId: {
            description: "Principal the authenticated actor represents.",
            $ref: "#/$defs/Identifier"
        },
        authorityRef: {
            description: "Delegation id; required when the actor acts for another principal.",
            $ref: "#/$defs/Identifier"
        },
        commitmentId: {
            description: "Id of the commitment (from a claim result, an auction resolution or get_my_market_outcome).",
            $ref: "#/$defs/GeneratedId"
        }
    },
    required: [
        "commandId",
        "principalId",
        "commitmentId"
    ],
    additionalProperties: false,
    $defs: {
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        GeneratedId: {
            description: "An id the service generated (commitment, bid, event). Longer, because it embeds a market id.",
            type: "string",
            minLength: 1,
            maxLength: 1024
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const declineCommitmentInputSchema = {
    description: "decline_commitment",
    type: "object",
    properties: {
        commandId: {
            description: "Actor-scoped idempotency key.",
            $ref: "#/$defs/Identifier"
        },
        principalId: {
            description: "Principal the authenticated actor represents.",
            $ref: "#/$defs/Identifier"
        },
        authorityRef: {
            description: "Delegation id; required when the actor acts for another principal.",
            $ref: "#/$defs/Identifier"
        },
        commitmentId: {
            description: "Id of the commitment (from a claim result, an auction resolution or get_my_market_outcome).",
            $ref: "#/$defs/GeneratedId"
        }
    },
    required: [
        "commandId",
        "principalId",
        "commitmentId"
    ],
    additionalProperties: false,
    $defs: {
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        GeneratedId: {
            description: "An id the service generated (commitment, bid, event). Longer, because it embeds a market id.",
            type: "string",
            minLength: 1,
            maxLength: 1024
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const getMarketInputSchema = {
    description: "get_market",
    type: "object",
    properties: {
        marketId: {
            description: "Id of the market, as chosen by its creator.",
            $ref: "#/$defs/PathIdentifier"
        }
    },
    required: [
        "marketId"
    ],
    additionalProperties: false,
    $defs: {
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const getMarketRecordInputSchema = {
    description: "get_market_record",
    type: "object",
    properties: {
        marketId: {
            description: "Id of the market, as chosen by its creator.",
            $ref: "#/$defs/PathIdentifier"
        }
    },
    required: [
        "marketId"
    ],
    additionalProperties: false,
    $defs: {
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const getMyMarketOutcomeInputSchema = {
    description: "get_my_market_outcome",
    type: "object",
    properties: {
        principalId: {
            description: "Principal whose outcome to read; default: the authenticated actor itself.",
            $ref: "#/$defs/Identifier"
        },
        authorityRef: {
            description: "Delegation (holding any market scope) to read another principal's outcome with.",
            $ref: "#/$defs/Identifier"
        },
        marketId: {
            description: "Id of the market, as chosen by its creator.",
            $ref: "#/$defs/PathIdentifier"
        }
    },
    required: [
        "marketId"
    ],
    additionalProperties: false,
    $defs: {
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const marketResultSchema = {
    type: "object",
    properties: {
        market: {
            $ref: "#/$defs/Market"
        },
        events: {
            type: "array",
            items: {
                $ref: "#/$defs/Event"
            }
        }
    },
    required: [
        "market",
        "events"
    ],
    additionalProperties: false,
    $defs: {
        Market: {
            description: "Spec \u00A72.3.",
            type: "object",
            properties: {
                id: {
                    $ref: "#/$defs/PathIdentifier"
                },
                version: {
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                state: {
                    $ref: "#/$defs/MarketState"
                },
                creator: {
                    $ref: "#/$defs/CommandIdentity"
                },
                subject: {
                    $ref: "#/$defs/Subject"
                },
                mechanism: {
                    $ref: "#/$defs/MechanismSelection"
                },
                mechanismState: {
                    $ref: "#/$defs/MechanismState"
                },
                createdAt: {
                    $ref: "#/$defs/DateTime"
                },
                updatedAt: {
                    $ref: "#/$defs/DateTime"
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
            ]
        },
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        },
        PositiveSafeUint64: {
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        MarketState: {
            type: "string",
            "enum": [
                "draft",
                "open",
                "closed"
            ]
        },
        CommandIdentity: {
            description: "Spec \u00A72.1 CommandIdentity.",
            type: "object",
            properties: {
                principalId: {
                    description: "Principal whose rights or obligations are affected.",
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    description: "Authenticated submitter.",
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    description: "Delegation used when actor and principal differ.",
                    $ref: "#/$defs/Identifier"
                }
            },
            required: [
                "principalId",
                "actorId"
            ]
        },
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        Subject: {
            description: "Spec \u00A72.1 Subject: `data` is any JSON object; the gateway bounds its size and nesting depth.",
            type: "object",
            properties: {
                schema: {
                    description: "Client-chosen versioned identifier of the data shape, e.g. `table-booking.v2`.",
                    type: "string",
                    minLength: 1,
                    maxLength: 256
                },
                data: {
                    description: "Any JSON object; additional members allowed.",
                    $ref: "#/$defs/Recordstringunknown"
                }
            },
            required: [
                "schema",
                "data"
            ]
        },
        Recordstringunknown: {
            description: "Construct a type with a set of properties K of type T",
            type: "object",
            properties: {},
            required: [],
            additionalProperties: {}
        },
        MechanismSelection: {
            description: "Normalized, immutable mechanism configuration of a market.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimSelection"
                },
                {
                    $ref: "#/$defs/SealedAuctionSelection"
                }
            ],
            "x-discriminator": {
                propertyName: "presetId",
                mapping: {
                    "direct-claim.v1": "#/$defs/DirectClaimSelection",
                    "sealed-forward-auction.v1": "#/$defs/SealedAuctionSelection"
                }
            }
        },
        DirectClaimSelection: {
            type: "object",
            properties: {
                presetId: {
                    type: "string",
                    "enum": [
                        "direct-claim.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/DirectClaimConfig"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        DirectClaimConfig: {
            description: "Normalized direct-claim.v1 configuration, as stored and returned.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimConfigWithHold"
                },
                {
                    $ref: "#/$defs/DirectClaimConfigWithoutHold"
                }
            ]
        },
        DirectClaimConfigWithHold: {
            type: "object",
            properties: {
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    description: "Principals that must confirm before the commitment is final.",
                    type: "string",
                    "enum": [
                        "creator",
                        "participant",
                        "both"
                    ]
                },
                holdDurationSeconds: {
                    description: "Confirmation period before expiry.",
                    $ref: "#/$defs/PositiveUint32"
                }
            },
            required: [
                "capacity",
                "pricing",
                "confirmation",
                "holdDurationSeconds"
            ]
        },
        PositiveUint32: {
            type: "integer",
            minimum: 1
        },
        DirectClaimPricing: {
            description: "DirectClaimPricing, discriminated by `mode`.",
            anyOf: [
                {
                    $ref: "#/$defs/FreePricing"
                },
                {
                    $ref: "#/$defs/PostedPricing"
                }
            ],
            "x-discriminator": {
                propertyName: "mode",
                mapping: {
                    free: "#/$defs/FreePricing",
                    posted: "#/$defs/PostedPricing"
                }
            }
        },
        FreePricing: {
            type: "object",
            properties: {
                mode: {
                    type: "string",
                    "enum": [
                        "free"
                    ]
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
                    type: "string",
                    "enum": [
                        "posted"
                    ]
                },
                amountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "mode",
                "amountMinor",
                "currency"
            ]
        },
        PositiveAmountMinor: {
            description: "Amounts in minor currency units that must be at least 1 (bids, posted prices, reserves).",
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        Currency: {
            type: "string",
            pattern: "^[A-Z]{3}$"
        },
        DirectClaimConfigWithoutHold: {
            type: "object",
            properties: {
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    type: "string",
                    "enum": [
                        "none"
                    ]
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
                    type: "string",
                    "enum": [
                        "sealed-forward-auction.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/SealedAuctionConfig"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        SealedAuctionConfig: {
            description: "sealed-forward-auction.v1 configuration (\u00A72.4); normalization rewrites `closesAt` to UTC milliseconds.",
            type: "object",
            properties: {
                currency: {
                    $ref: "#/$defs/Currency"
                },
                reserveAmountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                closesAt: {
                    description: "Fixed close; must still be in the future when the draft is published.",
                    $ref: "#/$defs/DateTime"
                },
                holdDurationSeconds: {
                    description: "Winner confirmation period after resolution.",
                    $ref: "#/$defs/PositiveUint32"
                }
            },
            required: [
                "currency",
                "closesAt",
                "holdDurationSeconds"
            ]
        },
        DateTime: {
            description: "RFC 3339 timestamp. Values the service emits are always `Date.prototype.toISOString()` form.",
            type: "string",
            format: "date-time"
        },
        MechanismState: {
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimState"
                },
                {
                    $ref: "#/$defs/SealedAuctionState"
                }
            ]
        },
        DirectClaimState: {
            description: "Public state of a direct-claim.v1 market.",
            type: "object",
            properties: {
                allocated: {
                    description: "Capacity currently held or committed.",
                    $ref: "#/$defs/Uint32"
                }
            },
            required: [
                "allocated"
            ]
        },
        Uint32: {
            type: "integer",
            minimum: 0
        },
        SealedAuctionState: {
            description: "Public state of a sealed-forward-auction.v1 market: bid contents are private.",
            type: "object",
            properties: {
                bidCount: {
                    description: "Accepted bids.",
                    $ref: "#/$defs/Uint32"
                },
                resolution: {
                    $ref: "#/$defs/AuctionResolutionOutcome"
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                excludedBidIds: {
                    description: "Bids excluded after a winner declined or expired, in exclusion order.",
                    type: "array",
                    items: {
                        $ref: "#/$defs/GeneratedId"
                    }
                }
            },
            required: [
                "bidCount"
            ]
        },
        AuctionResolutionOutcome: {
            type: "string",
            "enum": [
                "winner_selected",
                "no_trade"
            ]
        },
        GeneratedId: {
            description: "An id the service generated (commitment, bid, event). Longer, because it embeds a market id.",
            type: "string",
            minLength: 1,
            maxLength: 1024
        },
        Event: {
            description: "Every public event.",
            anyOf: [
                {
                    $ref: "#/$defs/DraftCreatedEvent"
                },
                {
                    $ref: "#/$defs/PublishedEvent"
                },
                {
                    $ref: "#/$defs/DirectClaimAcceptedEvent"
                },
                {
                    $ref: "#/$defs/BidSubmittedEvent"
                },
                {
                    $ref: "#/$defs/AuctionResolvedEvent"
                },
                {
                    $ref: "#/$defs/CommitmentEvent"
                }
            ]
        },
        DraftCreatedEvent: {
            type: "object",
            properties: {
                sequence: {
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "market.draft_created"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/DraftCreatedData"
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
                    $ref: "#/$defs/CommandIdentity"
                },
                subject: {
                    $ref: "#/$defs/Subject"
                },
                mechanism: {
                    $ref: "#/$defs/MechanismSelection"
                },
                mechanismState: {
                    $ref: "#/$defs/MechanismState"
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "market.published"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/PublishedData"
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
                    type: "string",
                    "enum": [
                        "draft"
                    ]
                },
                state: {
                    type: "string",
                    "enum": [
                        "open"
                    ]
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "direct_claim.accepted"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/DirectClaimAcceptedData"
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
                    $ref: "#/$defs/GeneratedId"
                },
                allocated: {
                    description: "Allocation after this claim.",
                    $ref: "#/$defs/PositiveUint32"
                },
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "sealed_auction.bid_submitted"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/BidSubmittedData"
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
                    $ref: "#/$defs/GeneratedId"
                },
                bidCount: {
                    description: "Accepted bids after this one.",
                    $ref: "#/$defs/PositiveUint32"
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "sealed_auction.resolved"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/SealedAuctionResolution"
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
            anyOf: [
                {
                    $ref: "#/$defs/NoTradeResolution"
                },
                {
                    $ref: "#/$defs/WinnerSelectedResolution"
                }
            ],
            "x-discriminator": {
                propertyName: "outcome",
                mapping: {
                    no_trade: "#/$defs/NoTradeResolution",
                    winner_selected: "#/$defs/WinnerSelectedResolution"
                }
            }
        },
        NoTradeResolution: {
            type: "object",
            properties: {
                outcome: {
                    type: "string",
                    "enum": [
                        "no_trade"
                    ]
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
                    type: "string",
                    "enum": [
                        "winner_selected"
                    ]
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                winnerPrincipalId: {
                    $ref: "#/$defs/Identifier"
                },
                clearingPrice: {
                    $ref: "#/$defs/SealedAuctionClearingPrice"
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
                    type: "string",
                    "enum": [
                        "second_price"
                    ]
                },
                amountMinor: {
                    description: "Second-highest eligible bid, or the reserve when higher; zero with one bidder and no reserve.",
                    $ref: "#/$defs/NonNegativeAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "rule",
                "amountMinor",
                "currency"
            ]
        },
        NonNegativeAmountMinor: {
            description: "Clearing price: zero is possible (no reserve, one bidder).",
            type: "integer",
            minimum: 0,
            maximum: 9007199254740991
        },
        CommitmentEvent: {
            type: "object",
            properties: {
                sequence: {
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    $ref: "#/$defs/CommitmentEventType"
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/CommitmentStateChangedEventData"
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
            type: "string",
            "enum": [
                "commitment.provisional",
                "commitment.awaiting_confirmations",
                "commitment.committed",
                "commitment.confirmation_recorded",
                "commitment.declined",
                "commitment.expired"
            ]
        },
        CommitmentStateChangedEventData: {
            type: "object",
            properties: {
                commitmentId: {
                    $ref: "#/$defs/GeneratedId"
                },
                state: {
                    $ref: "#/$defs/CommitmentState"
                },
                requiredConfirmationPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                confirmedPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                expiresAt: {
                    $ref: "#/$defs/DateTime"
                }
            },
            required: [
                "commitmentId",
                "state"
            ]
        },
        CommitmentState: {
            type: "string",
            "enum": [
                "provisional",
                "awaiting_confirmations",
                "committed",
                "declined",
                "expired",
                "failed"
            ]
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const marketActionResultSchema = {
    type: "object",
    properties: {
        market: {
            $ref: "#/$defs/Market"
        },
        commitments: {
            description: "Commitments created or changed by the command.",
            type: "array",
            items: {
                $ref: "#/$defs/Commitment"
            }
        },
        events: {
            type: "array",
            items: {
                $ref: "#/$defs/Event"
            }
        },
        bidReceipts: {
            type: "array",
            items: {
                $ref: "#/$defs/SealedBidReceipt"
            }
        },
        auctionResolution: {
            $ref: "#/$defs/SealedAuctionResolution"
        }
    },
    required: [
        "market",
        "commitments",
        "events"
    ],
    additionalProperties: false,
    $defs: {
        Market: {
            description: "Spec \u00A72.3.",
            type: "object",
            properties: {
                id: {
                    $ref: "#/$defs/PathIdentifier"
                },
                version: {
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                state: {
                    $ref: "#/$defs/MarketState"
                },
                creator: {
                    $ref: "#/$defs/CommandIdentity"
                },
                subject: {
                    $ref: "#/$defs/Subject"
                },
                mechanism: {
                    $ref: "#/$defs/MechanismSelection"
                },
                mechanismState: {
                    $ref: "#/$defs/MechanismState"
                },
                createdAt: {
                    $ref: "#/$defs/DateTime"
                },
                updatedAt: {
                    $ref: "#/$defs/DateTime"
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
            ]
        },
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        },
        PositiveSafeUint64: {
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        MarketState: {
            type: "string",
            "enum": [
                "draft",
                "open",
                "closed"
            ]
        },
        CommandIdentity: {
            description: "Spec \u00A72.1 CommandIdentity.",
            type: "object",
            properties: {
                principalId: {
                    description: "Principal whose rights or obligations are affected.",
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    description: "Authenticated submitter.",
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    description: "Delegation used when actor and principal differ.",
                    $ref: "#/$defs/Identifier"
                }
            },
            required: [
                "principalId",
                "actorId"
            ]
        },
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        Subject: {
            description: "Spec \u00A72.1 Subject: `data` is any JSON object; the gateway bounds its size and nesting depth.",
            type: "object",
            properties: {
                schema: {
                    description: "Client-chosen versioned identifier of the data shape, e.g. `table-booking.v2`.",
                    type: "string",
                    minLength: 1,
                    maxLength: 256
                },
                data: {
                    description: "Any JSON object; additional members allowed.",
                    $ref: "#/$defs/Recordstringunknown"
                }
            },
            required: [
                "schema",
                "data"
            ]
        },
        Recordstringunknown: {
            description: "Construct a type with a set of properties K of type T",
            type: "object",
            properties: {},
            required: [],
            additionalProperties: {}
        },
        MechanismSelection: {
            description: "Normalized, immutable mechanism configuration of a market.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimSelection"
                },
                {
                    $ref: "#/$defs/SealedAuctionSelection"
                }
            ],
            "x-discriminator": {
                propertyName: "presetId",
                mapping: {
                    "direct-claim.v1": "#/$defs/DirectClaimSelection",
                    "sealed-forward-auction.v1": "#/$defs/SealedAuctionSelection"
                }
            }
        },
        DirectClaimSelection: {
            type: "object",
            properties: {
                presetId: {
                    type: "string",
                    "enum": [
                        "direct-claim.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/DirectClaimConfig"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        DirectClaimConfig: {
            description: "Normalized direct-claim.v1 configuration, as stored and returned.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimConfigWithHold"
                },
                {
                    $ref: "#/$defs/DirectClaimConfigWithoutHold"
                }
            ]
        },
        DirectClaimConfigWithHold: {
            type: "object",
            properties: {
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    description: "Principals that must confirm before the commitment is final.",
                    type: "string",
                    "enum": [
                        "creator",
                        "participant",
                        "both"
                    ]
                },
                holdDurationSeconds: {
                    description: "Confirmation period before expiry.",
                    $ref: "#/$defs/PositiveUint32"
                }
            },
            required: [
                "capacity",
                "pricing",
                "confirmation",
                "holdDurationSeconds"
            ]
        },
        PositiveUint32: {
            type: "integer",
            minimum: 1
        },
        DirectClaimPricing: {
            description: "DirectClaimPricing, discriminated by `mode`.",
            anyOf: [
                {
                    $ref: "#/$defs/FreePricing"
                },
                {
                    $ref: "#/$defs/PostedPricing"
                }
            ],
            "x-discriminator": {
                propertyName: "mode",
                mapping: {
                    free: "#/$defs/FreePricing",
                    posted: "#/$defs/PostedPricing"
                }
            }
        },
        FreePricing: {
            type: "object",
            properties: {
                mode: {
                    type: "string",
                    "enum": [
                        "free"
                    ]
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
                    type: "string",
                    "enum": [
                        "posted"
                    ]
                },
                amountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "mode",
                "amountMinor",
                "currency"
            ]
        },
        PositiveAmountMinor: {
            description: "Amounts in minor currency units that must be at least 1 (bids, posted prices, reserves).",
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        Currency: {
            type: "string",
            pattern: "^[A-Z]{3}$"
        },
        DirectClaimConfigWithoutHold: {
            type: "object",
            properties: {
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    type: "string",
                    "enum": [
                        "none"
                    ]
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
                    type: "string",
                    "enum": [
                        "sealed-forward-auction.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/SealedAuctionConfig"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        SealedAuctionConfig: {
            description: "sealed-forward-auction.v1 configuration (\u00A72.4); normalization rewrites `closesAt` to UTC milliseconds.",
            type: "object",
            properties: {
                currency: {
                    $ref: "#/$defs/Currency"
                },
                reserveAmountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                closesAt: {
                    description: "Fixed close; must still be in the future when the draft is published.",
                    $ref: "#/$defs/DateTime"
                },
                holdDurationSeconds: {
                    description: "Winner confirmation period after resolution.",
                    $ref: "#/$defs/PositiveUint32"
                }
            },
            required: [
                "currency",
                "closesAt",
                "holdDurationSeconds"
            ]
        },
        DateTime: {
            description: "RFC 3339 timestamp. Values the service emits are always `Date.prototype.toISOString()` form.",
            type: "string",
            format: "date-time"
        },
        MechanismState: {
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimState"
                },
                {
                    $ref: "#/$defs/SealedAuctionState"
                }
            ]
        },
        DirectClaimState: {
            description: "Public state of a direct-claim.v1 market.",
            type: "object",
            properties: {
                allocated: {
                    description: "Capacity currently held or committed.",
                    $ref: "#/$defs/Uint32"
                }
            },
            required: [
                "allocated"
            ]
        },
        Uint32: {
            type: "integer",
            minimum: 0
        },
        SealedAuctionState: {
            description: "Public state of a sealed-forward-auction.v1 market: bid contents are private.",
            type: "object",
            properties: {
                bidCount: {
                    description: "Accepted bids.",
                    $ref: "#/$defs/Uint32"
                },
                resolution: {
                    $ref: "#/$defs/AuctionResolutionOutcome"
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                excludedBidIds: {
                    description: "Bids excluded after a winner declined or expired, in exclusion order.",
                    type: "array",
                    items: {
                        $ref: "#/$defs/GeneratedId"
                    }
                }
            },
            required: [
                "bidCount"
            ]
        },
        AuctionResolutionOutcome: {
            type: "string",
            "enum": [
                "winner_selected",
                "no_trade"
            ]
        },
        GeneratedId: {
            description: "An id the service generated (commitment, bid, event). Longer, because it embeds a market id.",
            type: "string",
            minLength: 1,
            maxLength: 1024
        },
        Commitment: {
            type: "object",
            properties: {
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                version: {
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version as of this commitment's latest change.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                creatorPrincipalId: {
                    $ref: "#/$defs/Identifier"
                },
                participantPrincipalId: {
                    $ref: "#/$defs/Identifier"
                },
                state: {
                    $ref: "#/$defs/CommitmentState"
                },
                terms: {
                    description: "Immutable, generated by the mechanism.",
                    $ref: "#/$defs/CommitmentTerms"
                },
                requiredConfirmationPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                confirmedPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                expiresAt: {
                    description: "Confirmation deadline; kept after the commitment leaves `awaiting_confirmations`.",
                    $ref: "#/$defs/DateTime"
                },
                createdAt: {
                    $ref: "#/$defs/DateTime"
                },
                updatedAt: {
                    $ref: "#/$defs/DateTime"
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
        CommitmentState: {
            type: "string",
            "enum": [
                "provisional",
                "awaiting_confirmations",
                "committed",
                "declined",
                "expired",
                "failed"
            ]
        },
        CommitmentTerms: {
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimCommitmentTerms"
                },
                {
                    $ref: "#/$defs/SealedAuctionCommitmentTerms"
                }
            ]
        },
        DirectClaimCommitmentTerms: {
            type: "object",
            properties: {
                subject: {
                    $ref: "#/$defs/Subject"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
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
                    $ref: "#/$defs/Subject"
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                pricing: {
                    $ref: "#/$defs/SealedAuctionClearingPrice"
                }
            },
            required: [
                "subject",
                "winningBidId",
                "pricing"
            ]
        },
        SealedAuctionClearingPrice: {
            type: "object",
            properties: {
                rule: {
                    type: "string",
                    "enum": [
                        "second_price"
                    ]
                },
                amountMinor: {
                    description: "Second-highest eligible bid, or the reserve when higher; zero with one bidder and no reserve.",
                    $ref: "#/$defs/NonNegativeAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "rule",
                "amountMinor",
                "currency"
            ]
        },
        NonNegativeAmountMinor: {
            description: "Clearing price: zero is possible (no reserve, one bidder).",
            type: "integer",
            minimum: 0,
            maximum: 9007199254740991
        },
        Event: {
            description: "Every public event.",
            anyOf: [
                {
                    $ref: "#/$defs/DraftCreatedEvent"
                },
                {
                    $ref: "#/$defs/PublishedEvent"
                },
                {
                    $ref: "#/$defs/DirectClaimAcceptedEvent"
                },
                {
                    $ref: "#/$defs/BidSubmittedEvent"
                },
                {
                    $ref: "#/$defs/AuctionResolvedEvent"
                },
                {
                    $ref: "#/$defs/CommitmentEvent"
                }
            ]
        },
        DraftCreatedEvent: {
            type: "object",
            properties: {
                sequence: {
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "market.draft_created"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/DraftCreatedData"
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
                    $ref: "#/$defs/CommandIdentity"
                },
                subject: {
                    $ref: "#/$defs/Subject"
                },
                mechanism: {
                    $ref: "#/$defs/MechanismSelection"
                },
                mechanismState: {
                    $ref: "#/$defs/MechanismState"
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "market.published"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/PublishedData"
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
                    type: "string",
                    "enum": [
                        "draft"
                    ]
                },
                state: {
                    type: "string",
                    "enum": [
                        "open"
                    ]
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "direct_claim.accepted"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/DirectClaimAcceptedData"
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
                    $ref: "#/$defs/GeneratedId"
                },
                allocated: {
                    description: "Allocation after this claim.",
                    $ref: "#/$defs/PositiveUint32"
                },
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "sealed_auction.bid_submitted"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/BidSubmittedData"
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
                    $ref: "#/$defs/GeneratedId"
                },
                bidCount: {
                    description: "Accepted bids after this one.",
                    $ref: "#/$defs/PositiveUint32"
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "sealed_auction.resolved"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/SealedAuctionResolution"
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
            anyOf: [
                {
                    $ref: "#/$defs/NoTradeResolution"
                },
                {
                    $ref: "#/$defs/WinnerSelectedResolution"
                }
            ],
            "x-discriminator": {
                propertyName: "outcome",
                mapping: {
                    no_trade: "#/$defs/NoTradeResolution",
                    winner_selected: "#/$defs/WinnerSelectedResolution"
                }
            }
        },
        NoTradeResolution: {
            type: "object",
            properties: {
                outcome: {
                    type: "string",
                    "enum": [
                        "no_trade"
                    ]
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
                    type: "string",
                    "enum": [
                        "winner_selected"
                    ]
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                winnerPrincipalId: {
                    $ref: "#/$defs/Identifier"
                },
                clearingPrice: {
                    $ref: "#/$defs/SealedAuctionClearingPrice"
                }
            },
            required: [
                "outcome",
                "winningBidId",
                "winnerPrincipalId",
                "clearingPrice"
            ]
        },
        CommitmentEvent: {
            type: "object",
            properties: {
                sequence: {
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    $ref: "#/$defs/CommitmentEventType"
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/CommitmentStateChangedEventData"
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
            type: "string",
            "enum": [
                "commitment.provisional",
                "commitment.awaiting_confirmations",
                "commitment.committed",
                "commitment.confirmation_recorded",
                "commitment.declined",
                "commitment.expired"
            ]
        },
        CommitmentStateChangedEventData: {
            type: "object",
            properties: {
                commitmentId: {
                    $ref: "#/$defs/GeneratedId"
                },
                state: {
                    $ref: "#/$defs/CommitmentState"
                },
                requiredConfirmationPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                confirmedPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                expiresAt: {
                    $ref: "#/$defs/DateTime"
                }
            },
            required: [
                "commitmentId",
                "state"
            ]
        },
        SealedBidReceipt: {
            description: "Amount-free acknowledgement of an accepted sealed bid.",
            type: "object",
            properties: {
                bidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                state: {
                    type: "string",
                    "enum": [
                        "active"
                    ]
                },
                submittedAt: {
                    $ref: "#/$defs/DateTime"
                }
            },
            required: [
                "bidId",
                "marketId",
                "marketVersion",
                "state",
                "submittedAt"
            ]
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const marketSchema = {
    description: "Spec \u00A72.3.",
    type: "object",
    properties: {
        id: {
            $ref: "#/$defs/PathIdentifier"
        },
        version: {
            $ref: "#/$defs/PositiveSafeUint64"
        },
        state: {
            $ref: "#/$defs/MarketState"
        },
        creator: {
            $ref: "#/$defs/CommandIdentity"
        },
        subject: {
            $ref: "#/$defs/Subject"
        },
        mechanism: {
            $ref: "#/$defs/MechanismSelection"
        },
        mechanismState: {
            $ref: "#/$defs/MechanismState"
        },
        createdAt: {
            $ref: "#/$defs/DateTime"
        },
        updatedAt: {
            $ref: "#/$defs/DateTime"
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
    additionalProperties: false,
    $defs: {
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        },
        PositiveSafeUint64: {
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        MarketState: {
            type: "string",
            "enum": [
                "draft",
                "open",
                "closed"
            ]
        },
        CommandIdentity: {
            description: "Spec \u00A72.1 CommandIdentity.",
            type: "object",
            properties: {
                principalId: {
                    description: "Principal whose rights or obligations are affected.",
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    description: "Authenticated submitter.",
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    description: "Delegation used when actor and principal differ.",
                    $ref: "#/$defs/Identifier"
                }
            },
            required: [
                "principalId",
                "actorId"
            ]
        },
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        Subject: {
            description: "Spec \u00A72.1 Subject: `data` is any JSON object; the gateway bounds its size and nesting depth.",
            type: "object",
            properties: {
                schema: {
                    description: "Client-chosen versioned identifier of the data shape, e.g. `table-booking.v2`.",
                    type: "string",
                    minLength: 1,
                    maxLength: 256
                },
                data: {
                    description: "Any JSON object; additional members allowed.",
                    $ref: "#/$defs/Recordstringunknown"
                }
            },
            required: [
                "schema",
                "data"
            ]
        },
        Recordstringunknown: {
            description: "Construct a type with a set of properties K of type T",
            type: "object",
            properties: {},
            required: [],
            additionalProperties: {}
        },
        MechanismSelection: {
            description: "Normalized, immutable mechanism configuration of a market.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimSelection"
                },
                {
                    $ref: "#/$defs/SealedAuctionSelection"
                }
            ],
            "x-discriminator": {
                propertyName: "presetId",
                mapping: {
                    "direct-claim.v1": "#/$defs/DirectClaimSelection",
                    "sealed-forward-auction.v1": "#/$defs/SealedAuctionSelection"
                }
            }
        },
        DirectClaimSelection: {
            type: "object",
            properties: {
                presetId: {
                    type: "string",
                    "enum": [
                        "direct-claim.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/DirectClaimConfig"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        DirectClaimConfig: {
            description: "Normalized direct-claim.v1 configuration, as stored and returned.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimConfigWithHold"
                },
                {
                    $ref: "#/$defs/DirectClaimConfigWithoutHold"
                }
            ]
        },
        DirectClaimConfigWithHold: {
            type: "object",
            properties: {
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    description: "Principals that must confirm before the commitment is final.",
                    type: "string",
                    "enum": [
                        "creator",
                        "participant",
                        "both"
                    ]
                },
                holdDurationSeconds: {
                    description: "Confirmation period before expiry.",
                    $ref: "#/$defs/PositiveUint32"
                }
            },
            required: [
                "capacity",
                "pricing",
                "confirmation",
                "holdDurationSeconds"
            ]
        },
        PositiveUint32: {
            type: "integer",
            minimum: 1
        },
        DirectClaimPricing: {
            description: "DirectClaimPricing, discriminated by `mode`.",
            anyOf: [
                {
                    $ref: "#/$defs/FreePricing"
                },
                {
                    $ref: "#/$defs/PostedPricing"
                }
            ],
            "x-discriminator": {
                propertyName: "mode",
                mapping: {
                    free: "#/$defs/FreePricing",
                    posted: "#/$defs/PostedPricing"
                }
            }
        },
        FreePricing: {
            type: "object",
            properties: {
                mode: {
                    type: "string",
                    "enum": [
                        "free"
                    ]
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
                    type: "string",
                    "enum": [
                        "posted"
                    ]
                },
                amountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "mode",
                "amountMinor",
                "currency"
            ]
        },
        PositiveAmountMinor: {
            description: "Amounts in minor currency units that must be at least 1 (bids, posted prices, reserves).",
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        Currency: {
            type: "string",
            pattern: "^[A-Z]{3}$"
        },
        DirectClaimConfigWithoutHold: {
            type: "object",
            properties: {
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    type: "string",
                    "enum": [
                        "none"
                    ]
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
                    type: "string",
                    "enum": [
                        "sealed-forward-auction.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/SealedAuctionConfig"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        SealedAuctionConfig: {
            description: "sealed-forward-auction.v1 configuration (\u00A72.4); normalization rewrites `closesAt` to UTC milliseconds.",
            type: "object",
            properties: {
                currency: {
                    $ref: "#/$defs/Currency"
                },
                reserveAmountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                closesAt: {
                    description: "Fixed close; must still be in the future when the draft is published.",
                    $ref: "#/$defs/DateTime"
                },
                holdDurationSeconds: {
                    description: "Winner confirmation period after resolution.",
                    $ref: "#/$defs/PositiveUint32"
                }
            },
            required: [
                "currency",
                "closesAt",
                "holdDurationSeconds"
            ]
        },
        DateTime: {
            description: "RFC 3339 timestamp. Values the service emits are always `Date.prototype.toISOString()` form.",
            type: "string",
            format: "date-time"
        },
        MechanismState: {
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimState"
                },
                {
                    $ref: "#/$defs/SealedAuctionState"
                }
            ]
        },
        DirectClaimState: {
            description: "Public state of a direct-claim.v1 market.",
            type: "object",
            properties: {
                allocated: {
                    description: "Capacity currently held or committed.",
                    $ref: "#/$defs/Uint32"
                }
            },
            required: [
                "allocated"
            ]
        },
        Uint32: {
            type: "integer",
            minimum: 0
        },
        SealedAuctionState: {
            description: "Public state of a sealed-forward-auction.v1 market: bid contents are private.",
            type: "object",
            properties: {
                bidCount: {
                    description: "Accepted bids.",
                    $ref: "#/$defs/Uint32"
                },
                resolution: {
                    $ref: "#/$defs/AuctionResolutionOutcome"
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                excludedBidIds: {
                    description: "Bids excluded after a winner declined or expired, in exclusion order.",
                    type: "array",
                    items: {
                        $ref: "#/$defs/GeneratedId"
                    }
                }
            },
            required: [
                "bidCount"
            ]
        },
        AuctionResolutionOutcome: {
            type: "string",
            "enum": [
                "winner_selected",
                "no_trade"
            ]
        },
        GeneratedId: {
            description: "An id the service generated (commitment, bid, event). Longer, because it embeds a market id.",
            type: "string",
            minLength: 1,
            maxLength: 1024
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const marketRecordSchema = {
    type: "object",
    properties: {
        market: {
            $ref: "#/$defs/Market"
        },
        commands: {
            type: "array",
            items: {
                $ref: "#/$defs/RecordedCommand"
            }
        },
        commitments: {
            type: "array",
            items: {
                $ref: "#/$defs/Commitment"
            }
        },
        events: {
            type: "array",
            items: {
                $ref: "#/$defs/Event"
            }
        },
        integrity: {
            $ref: "#/$defs/RecordIntegrity"
        }
    },
    required: [
        "market",
        "commands",
        "commitments",
        "events",
        "integrity"
    ],
    additionalProperties: false,
    $defs: {
        Market: {
            description: "Spec \u00A72.3.",
            type: "object",
            properties: {
                id: {
                    $ref: "#/$defs/PathIdentifier"
                },
                version: {
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                state: {
                    $ref: "#/$defs/MarketState"
                },
                creator: {
                    $ref: "#/$defs/CommandIdentity"
                },
                subject: {
                    $ref: "#/$defs/Subject"
                },
                mechanism: {
                    $ref: "#/$defs/MechanismSelection"
                },
                mechanismState: {
                    $ref: "#/$defs/MechanismState"
                },
                createdAt: {
                    $ref: "#/$defs/DateTime"
                },
                updatedAt: {
                    $ref: "#/$defs/DateTime"
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
            ]
        },
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        },
        PositiveSafeUint64: {
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        MarketState: {
            type: "string",
            "enum": [
                "draft",
                "open",
                "closed"
            ]
        },
        CommandIdentity: {
            description: "Spec \u00A72.1 CommandIdentity.",
            type: "object",
            properties: {
                principalId: {
                    description: "Principal whose rights or obligations are affected.",
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    description: "Authenticated submitter.",
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    description: "Delegation used when actor and principal differ.",
                    $ref: "#/$defs/Identifier"
                }
            },
            required: [
                "principalId",
                "actorId"
            ]
        },
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        Subject: {
            description: "Spec \u00A72.1 Subject: `data` is any JSON object; the gateway bounds its size and nesting depth.",
            type: "object",
            properties: {
                schema: {
                    description: "Client-chosen versioned identifier of the data shape, e.g. `table-booking.v2`.",
                    type: "string",
                    minLength: 1,
                    maxLength: 256
                },
                data: {
                    description: "Any JSON object; additional members allowed.",
                    $ref: "#/$defs/Recordstringunknown"
                }
            },
            required: [
                "schema",
                "data"
            ]
        },
        Recordstringunknown: {
            description: "Construct a type with a set of properties K of type T",
            type: "object",
            properties: {},
            required: [],
            additionalProperties: {}
        },
        MechanismSelection: {
            description: "Normalized, immutable mechanism configuration of a market.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimSelection"
                },
                {
                    $ref: "#/$defs/SealedAuctionSelection"
                }
            ],
            "x-discriminator": {
                propertyName: "presetId",
                mapping: {
                    "direct-claim.v1": "#/$defs/DirectClaimSelection",
                    "sealed-forward-auction.v1": "#/$defs/SealedAuctionSelection"
                }
            }
        },
        DirectClaimSelection: {
            type: "object",
            properties: {
                presetId: {
                    type: "string",
                    "enum": [
                        "direct-claim.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/DirectClaimConfig"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        DirectClaimConfig: {
            description: "Normalized direct-claim.v1 configuration, as stored and returned.",
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimConfigWithHold"
                },
                {
                    $ref: "#/$defs/DirectClaimConfigWithoutHold"
                }
            ]
        },
        DirectClaimConfigWithHold: {
            type: "object",
            properties: {
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    description: "Principals that must confirm before the commitment is final.",
                    type: "string",
                    "enum": [
                        "creator",
                        "participant",
                        "both"
                    ]
                },
                holdDurationSeconds: {
                    description: "Confirmation period before expiry.",
                    $ref: "#/$defs/PositiveUint32"
                }
            },
            required: [
                "capacity",
                "pricing",
                "confirmation",
                "holdDurationSeconds"
            ]
        },
        PositiveUint32: {
            type: "integer",
            minimum: 1
        },
        DirectClaimPricing: {
            description: "DirectClaimPricing, discriminated by `mode`.",
            anyOf: [
                {
                    $ref: "#/$defs/FreePricing"
                },
                {
                    $ref: "#/$defs/PostedPricing"
                }
            ],
            "x-discriminator": {
                propertyName: "mode",
                mapping: {
                    free: "#/$defs/FreePricing",
                    posted: "#/$defs/PostedPricing"
                }
            }
        },
        FreePricing: {
            type: "object",
            properties: {
                mode: {
                    type: "string",
                    "enum": [
                        "free"
                    ]
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
                    type: "string",
                    "enum": [
                        "posted"
                    ]
                },
                amountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "mode",
                "amountMinor",
                "currency"
            ]
        },
        PositiveAmountMinor: {
            description: "Amounts in minor currency units that must be at least 1 (bids, posted prices, reserves).",
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        Currency: {
            type: "string",
            pattern: "^[A-Z]{3}$"
        },
        DirectClaimConfigWithoutHold: {
            type: "object",
            properties: {
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                },
                confirmation: {
                    type: "string",
                    "enum": [
                        "none"
                    ]
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
                    type: "string",
                    "enum": [
                        "sealed-forward-auction.v1"
                    ]
                },
                config: {
                    $ref: "#/$defs/SealedAuctionConfig"
                }
            },
            required: [
                "presetId",
                "config"
            ]
        },
        SealedAuctionConfig: {
            description: "sealed-forward-auction.v1 configuration (\u00A72.4); normalization rewrites `closesAt` to UTC milliseconds.",
            type: "object",
            properties: {
                currency: {
                    $ref: "#/$defs/Currency"
                },
                reserveAmountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                closesAt: {
                    description: "Fixed close; must still be in the future when the draft is published.",
                    $ref: "#/$defs/DateTime"
                },
                holdDurationSeconds: {
                    description: "Winner confirmation period after resolution.",
                    $ref: "#/$defs/PositiveUint32"
                }
            },
            required: [
                "currency",
                "closesAt",
                "holdDurationSeconds"
            ]
        },
        DateTime: {
            description: "RFC 3339 timestamp. Values the service emits are always `Date.prototype.toISOString()` form.",
            type: "string",
            format: "date-time"
        },
        MechanismState: {
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimState"
                },
                {
                    $ref: "#/$defs/SealedAuctionState"
                }
            ]
        },
        DirectClaimState: {
            description: "Public state of a direct-claim.v1 market.",
            type: "object",
            properties: {
                allocated: {
                    description: "Capacity currently held or committed.",
                    $ref: "#/$defs/Uint32"
                }
            },
            required: [
                "allocated"
            ]
        },
        Uint32: {
            type: "integer",
            minimum: 0
        },
        SealedAuctionState: {
            description: "Public state of a sealed-forward-auction.v1 market: bid contents are private.",
            type: "object",
            properties: {
                bidCount: {
                    description: "Accepted bids.",
                    $ref: "#/$defs/Uint32"
                },
                resolution: {
                    $ref: "#/$defs/AuctionResolutionOutcome"
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                excludedBidIds: {
                    description: "Bids excluded after a winner declined or expired, in exclusion order.",
                    type: "array",
                    items: {
                        $ref: "#/$defs/GeneratedId"
                    }
                }
            },
            required: [
                "bidCount"
            ]
        },
        AuctionResolutionOutcome: {
            type: "string",
            "enum": [
                "winner_selected",
                "no_trade"
            ]
        },
        GeneratedId: {
            description: "An id the service generated (commitment, bid, event). Longer, because it embeds a market id.",
            type: "string",
            minLength: 1,
            maxLength: 1024
        },
        RecordedCommand: {
            type: "object",
            properties: {
                sequence: {
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/Identifier"
                },
                type: {
                    $ref: "#/$defs/CommandType"
                },
                marketId: {
                    description: "Empty only when a rejected command could not be associated with a market.",
                    type: "string"
                },
                identity: {
                    $ref: "#/$defs/CommandIdentity"
                },
                request: {
                    description: "The recorded application command including server-assigned identity and time. An open sealed\nbid is redacted to `{sealed: true}`.",
                    $ref: "#/$defs/Recordstringunknown"
                },
                status: {
                    type: "string",
                    "enum": [
                        "accepted",
                        "rejected"
                    ]
                },
                rejectionCode: {
                    $ref: "#/$defs/ErrorCode"
                },
                occurredAt: {
                    $ref: "#/$defs/DateTime"
                },
                recordedAt: {
                    $ref: "#/$defs/DateTime"
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
            type: "string",
            "enum": [
                "market.create_draft",
                "market.publish",
                "direct_claim.submit",
                "sealed_auction.submit_bid",
                "sealed_auction.resolve",
                "commitment.confirm",
                "commitment.decline",
                "commitment.expire"
            ]
        },
        ErrorCode: {
            description: "Spec \u00A77.1: every error code a client can branch on.",
            type: "string",
            "enum": [
                "invalid_request",
                "unauthenticated",
                "forbidden",
                "identity_conflict",
                "identity_not_found",
                "delegation_not_found",
                "delegation_conflict",
                "delegation_inactive",
                "not_found",
                "method_not_allowed",
                "idempotency_conflict",
                "concurrent_update",
                "internal_error",
                "invalid_command",
                "authority_reference_required",
                "unknown_mechanism",
                "invalid_mechanism_config",
                "market_not_found",
                "commitment_not_found",
                "principal_not_authorized",
                "version_conflict",
                "invalid_market_transition",
                "invalid_commitment_transition",
                "actor_not_authorized",
                "capacity_exhausted"
            ]
        },
        Commitment: {
            type: "object",
            properties: {
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                version: {
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version as of this commitment's latest change.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                creatorPrincipalId: {
                    $ref: "#/$defs/Identifier"
                },
                participantPrincipalId: {
                    $ref: "#/$defs/Identifier"
                },
                state: {
                    $ref: "#/$defs/CommitmentState"
                },
                terms: {
                    description: "Immutable, generated by the mechanism.",
                    $ref: "#/$defs/CommitmentTerms"
                },
                requiredConfirmationPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                confirmedPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                expiresAt: {
                    description: "Confirmation deadline; kept after the commitment leaves `awaiting_confirmations`.",
                    $ref: "#/$defs/DateTime"
                },
                createdAt: {
                    $ref: "#/$defs/DateTime"
                },
                updatedAt: {
                    $ref: "#/$defs/DateTime"
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
        CommitmentState: {
            type: "string",
            "enum": [
                "provisional",
                "awaiting_confirmations",
                "committed",
                "declined",
                "expired",
                "failed"
            ]
        },
        CommitmentTerms: {
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimCommitmentTerms"
                },
                {
                    $ref: "#/$defs/SealedAuctionCommitmentTerms"
                }
            ]
        },
        DirectClaimCommitmentTerms: {
            type: "object",
            properties: {
                subject: {
                    $ref: "#/$defs/Subject"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
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
                    $ref: "#/$defs/Subject"
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                pricing: {
                    $ref: "#/$defs/SealedAuctionClearingPrice"
                }
            },
            required: [
                "subject",
                "winningBidId",
                "pricing"
            ]
        },
        SealedAuctionClearingPrice: {
            type: "object",
            properties: {
                rule: {
                    type: "string",
                    "enum": [
                        "second_price"
                    ]
                },
                amountMinor: {
                    description: "Second-highest eligible bid, or the reserve when higher; zero with one bidder and no reserve.",
                    $ref: "#/$defs/NonNegativeAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "rule",
                "amountMinor",
                "currency"
            ]
        },
        NonNegativeAmountMinor: {
            description: "Clearing price: zero is possible (no reserve, one bidder).",
            type: "integer",
            minimum: 0,
            maximum: 9007199254740991
        },
        Event: {
            description: "Every public event.",
            anyOf: [
                {
                    $ref: "#/$defs/DraftCreatedEvent"
                },
                {
                    $ref: "#/$defs/PublishedEvent"
                },
                {
                    $ref: "#/$defs/DirectClaimAcceptedEvent"
                },
                {
                    $ref: "#/$defs/BidSubmittedEvent"
                },
                {
                    $ref: "#/$defs/AuctionResolvedEvent"
                },
                {
                    $ref: "#/$defs/CommitmentEvent"
                }
            ]
        },
        DraftCreatedEvent: {
            type: "object",
            properties: {
                sequence: {
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "market.draft_created"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/DraftCreatedData"
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
                    $ref: "#/$defs/CommandIdentity"
                },
                subject: {
                    $ref: "#/$defs/Subject"
                },
                mechanism: {
                    $ref: "#/$defs/MechanismSelection"
                },
                mechanismState: {
                    $ref: "#/$defs/MechanismState"
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "market.published"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/PublishedData"
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
                    type: "string",
                    "enum": [
                        "draft"
                    ]
                },
                state: {
                    type: "string",
                    "enum": [
                        "open"
                    ]
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "direct_claim.accepted"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/DirectClaimAcceptedData"
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
                    $ref: "#/$defs/GeneratedId"
                },
                allocated: {
                    description: "Allocation after this claim.",
                    $ref: "#/$defs/PositiveUint32"
                },
                capacity: {
                    $ref: "#/$defs/PositiveUint32"
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "sealed_auction.bid_submitted"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/BidSubmittedData"
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
                    $ref: "#/$defs/GeneratedId"
                },
                bidCount: {
                    description: "Accepted bids after this one.",
                    $ref: "#/$defs/PositiveUint32"
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
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    type: "string",
                    "enum": [
                        "sealed_auction.resolved"
                    ]
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/SealedAuctionResolution"
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
            anyOf: [
                {
                    $ref: "#/$defs/NoTradeResolution"
                },
                {
                    $ref: "#/$defs/WinnerSelectedResolution"
                }
            ],
            "x-discriminator": {
                propertyName: "outcome",
                mapping: {
                    no_trade: "#/$defs/NoTradeResolution",
                    winner_selected: "#/$defs/WinnerSelectedResolution"
                }
            }
        },
        NoTradeResolution: {
            type: "object",
            properties: {
                outcome: {
                    type: "string",
                    "enum": [
                        "no_trade"
                    ]
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
                    type: "string",
                    "enum": [
                        "winner_selected"
                    ]
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                winnerPrincipalId: {
                    $ref: "#/$defs/Identifier"
                },
                clearingPrice: {
                    $ref: "#/$defs/SealedAuctionClearingPrice"
                }
            },
            required: [
                "outcome",
                "winningBidId",
                "winnerPrincipalId",
                "clearingPrice"
            ]
        },
        CommitmentEvent: {
            type: "object",
            properties: {
                sequence: {
                    description: "Durable order within the market record (always present from this service).",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                type: {
                    $ref: "#/$defs/CommitmentEventType"
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version after the command that emitted this event.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                commandId: {
                    $ref: "#/$defs/Identifier"
                },
                principalId: {
                    $ref: "#/$defs/Identifier"
                },
                actorId: {
                    $ref: "#/$defs/Identifier"
                },
                authorityRef: {
                    $ref: "#/$defs/Identifier"
                },
                occurredAt: {
                    description: "Server-stamped command time.",
                    $ref: "#/$defs/DateTime"
                },
                data: {
                    $ref: "#/$defs/CommitmentStateChangedEventData"
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
            type: "string",
            "enum": [
                "commitment.provisional",
                "commitment.awaiting_confirmations",
                "commitment.committed",
                "commitment.confirmation_recorded",
                "commitment.declined",
                "commitment.expired"
            ]
        },
        CommitmentStateChangedEventData: {
            type: "object",
            properties: {
                commitmentId: {
                    $ref: "#/$defs/GeneratedId"
                },
                state: {
                    $ref: "#/$defs/CommitmentState"
                },
                requiredConfirmationPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                confirmedPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                expiresAt: {
                    $ref: "#/$defs/DateTime"
                }
            },
            required: [
                "commitmentId",
                "state"
            ]
        },
        RecordIntegrity: {
            type: "object",
            properties: {
                algorithm: {
                    type: "string",
                    "enum": [
                        "sha256-canonical-json-v1"
                    ]
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
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
export const marketOutcomeSchema = {
    description: "get_my_market_outcome (and GET /v1/markets/{marketId}/my-outcome): one principal's own view.",
    type: "object",
    properties: {
        marketId: {
            $ref: "#/$defs/PathIdentifier"
        },
        principalId: {
            $ref: "#/$defs/Identifier"
        },
        bidReceipts: {
            description: "The principal's accepted sealed bids (amount-free).",
            type: "array",
            items: {
                $ref: "#/$defs/SealedBidReceipt"
            }
        },
        commitments: {
            description: "Commitments in which the principal is the participant or the creator.",
            type: "array",
            items: {
                $ref: "#/$defs/Commitment"
            }
        }
    },
    required: [
        "marketId",
        "principalId",
        "bidReceipts",
        "commitments"
    ],
    additionalProperties: false,
    $defs: {
        PathIdentifier: {
            description: "An identifier that is also a URL path segment (`/v1/markets/{marketId}`,\n`/v1/delegations/{delegationId}/revoke`): an Identifier that is not `.` or `..`, which URL parsers\nremove from a path as dot segments (`%2e` too), so a resource with such an id could never be named.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^(?!\\.\\.?$)[^\\u0000-\\u001F\\u007F]+$"
        },
        Identifier: {
            description: "A client- or operator-chosen identifier: 1..128 characters, no C0 control characters or DEL\n(they would corrupt logs and terminals), no leading/trailing constraints beyond that.",
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[^\\u0000-\\u001F\\u007F]+$"
        },
        SealedBidReceipt: {
            description: "Amount-free acknowledgement of an accepted sealed bid.",
            type: "object",
            properties: {
                bidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                state: {
                    type: "string",
                    "enum": [
                        "active"
                    ]
                },
                submittedAt: {
                    $ref: "#/$defs/DateTime"
                }
            },
            required: [
                "bidId",
                "marketId",
                "marketVersion",
                "state",
                "submittedAt"
            ]
        },
        GeneratedId: {
            description: "An id the service generated (commitment, bid, event). Longer, because it embeds a market id.",
            type: "string",
            minLength: 1,
            maxLength: 1024
        },
        PositiveSafeUint64: {
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        DateTime: {
            description: "RFC 3339 timestamp. Values the service emits are always `Date.prototype.toISOString()` form.",
            type: "string",
            format: "date-time"
        },
        Commitment: {
            type: "object",
            properties: {
                id: {
                    $ref: "#/$defs/GeneratedId"
                },
                version: {
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                marketId: {
                    $ref: "#/$defs/PathIdentifier"
                },
                marketVersion: {
                    description: "Market version as of this commitment's latest change.",
                    $ref: "#/$defs/PositiveSafeUint64"
                },
                creatorPrincipalId: {
                    $ref: "#/$defs/Identifier"
                },
                participantPrincipalId: {
                    $ref: "#/$defs/Identifier"
                },
                state: {
                    $ref: "#/$defs/CommitmentState"
                },
                terms: {
                    description: "Immutable, generated by the mechanism.",
                    $ref: "#/$defs/CommitmentTerms"
                },
                requiredConfirmationPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                confirmedPrincipalIds: {
                    type: "array",
                    items: {
                        $ref: "#/$defs/Identifier"
                    }
                },
                expiresAt: {
                    description: "Confirmation deadline; kept after the commitment leaves `awaiting_confirmations`.",
                    $ref: "#/$defs/DateTime"
                },
                createdAt: {
                    $ref: "#/$defs/DateTime"
                },
                updatedAt: {
                    $ref: "#/$defs/DateTime"
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
        CommitmentState: {
            type: "string",
            "enum": [
                "provisional",
                "awaiting_confirmations",
                "committed",
                "declined",
                "expired",
                "failed"
            ]
        },
        CommitmentTerms: {
            anyOf: [
                {
                    $ref: "#/$defs/DirectClaimCommitmentTerms"
                },
                {
                    $ref: "#/$defs/SealedAuctionCommitmentTerms"
                }
            ]
        },
        DirectClaimCommitmentTerms: {
            type: "object",
            properties: {
                subject: {
                    $ref: "#/$defs/Subject"
                },
                pricing: {
                    $ref: "#/$defs/DirectClaimPricing"
                }
            },
            required: [
                "subject",
                "pricing"
            ]
        },
        Subject: {
            description: "Spec \u00A72.1 Subject: `data` is any JSON object; the gateway bounds its size and nesting depth.",
            type: "object",
            properties: {
                schema: {
                    description: "Client-chosen versioned identifier of the data shape, e.g. `table-booking.v2`.",
                    type: "string",
                    minLength: 1,
                    maxLength: 256
                },
                data: {
                    description: "Any JSON object; additional members allowed.",
                    $ref: "#/$defs/Recordstringunknown"
                }
            },
            required: [
                "schema",
                "data"
            ]
        },
        Recordstringunknown: {
            description: "Construct a type with a set of properties K of type T",
            type: "object",
            properties: {},
            required: [],
            additionalProperties: {}
        },
        DirectClaimPricing: {
            description: "DirectClaimPricing, discriminated by `mode`.",
            anyOf: [
                {
                    $ref: "#/$defs/FreePricing"
                },
                {
                    $ref: "#/$defs/PostedPricing"
                }
            ],
            "x-discriminator": {
                propertyName: "mode",
                mapping: {
                    free: "#/$defs/FreePricing",
                    posted: "#/$defs/PostedPricing"
                }
            }
        },
        FreePricing: {
            type: "object",
            properties: {
                mode: {
                    type: "string",
                    "enum": [
                        "free"
                    ]
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
                    type: "string",
                    "enum": [
                        "posted"
                    ]
                },
                amountMinor: {
                    $ref: "#/$defs/PositiveAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "mode",
                "amountMinor",
                "currency"
            ]
        },
        PositiveAmountMinor: {
            description: "Amounts in minor currency units that must be at least 1 (bids, posted prices, reserves).",
            type: "integer",
            minimum: 1,
            maximum: 9007199254740991
        },
        Currency: {
            type: "string",
            pattern: "^[A-Z]{3}$"
        },
        SealedAuctionCommitmentTerms: {
            type: "object",
            properties: {
                subject: {
                    $ref: "#/$defs/Subject"
                },
                winningBidId: {
                    $ref: "#/$defs/GeneratedId"
                },
                pricing: {
                    $ref: "#/$defs/SealedAuctionClearingPrice"
                }
            },
            required: [
                "subject",
                "winningBidId",
                "pricing"
            ]
        },
        SealedAuctionClearingPrice: {
            type: "object",
            properties: {
                rule: {
                    type: "string",
                    "enum": [
                        "second_price"
                    ]
                },
                amountMinor: {
                    description: "Second-highest eligible bid, or the reserve when higher; zero with one bidder and no reserve.",
                    $ref: "#/$defs/NonNegativeAmountMinor"
                },
                currency: {
                    $ref: "#/$defs/Currency"
                }
            },
            required: [
                "rule",
                "amountMinor",
                "currency"
            ]
        },
        NonNegativeAmountMinor: {
            description: "Clearing price: zero is possible (no reserve, one bidder).",
            type: "integer",
            minimum: 0,
            maximum: 9007199254740991
        }
    }
} satisfies import("typia").ILlmSchema.IParameters as import("typia").ILlmSchema.IParameters;
