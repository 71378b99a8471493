import * as __typia_transform__isTypeUint32 from "typia/lib/internal/_isTypeUint32";
import * as __typia_transform__isTypeInt64 from "typia/lib/internal/_isTypeInt64";
import * as __typia_transform__accessExpressionAsString from "typia/lib/internal/_accessExpressionAsString";
import * as __typia_transform__validateReport from "typia/lib/internal/_validateReport";
import * as __typia_transform__createStandardSchema from "typia/lib/internal/_createStandardSchema";
import * as __typia_transform__isFormatDateTime from "typia/lib/internal/_isFormatDateTime";
import type { DirectClaimConfigInput, SealedAuctionConfig } from "@market-service/client/wire";
export const validateDirectClaimConfig = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "number" === typeof input.capacity && (__typia_transform__isTypeUint32._isTypeUint32(input.capacity) && 1 <= input.capacity) && ("object" === typeof input.pricing && null !== input.pricing && _iu0(input.pricing, true && _exceptionable)) && "none" === input.confirmation && (undefined === input.holdDurationSeconds || 0 === input.holdDurationSeconds) && (3 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["capacity", "pricing", "confirmation", "holdDurationSeconds"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _io1 = (input: any, _exceptionable: boolean = true): boolean => "free" === input.mode && (1 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["mode"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _io2 = (input: any, _exceptionable: boolean = true): boolean => "posted" === input.mode && ("number" === typeof input.amountMinor && (__typia_transform__isTypeInt64._isTypeInt64(input.amountMinor) && 1 <= input.amountMinor && input.amountMinor <= 9007199254740991)) && ("string" === typeof input.currency && RegExp("^[A-Z]{3}$").test(input.currency)) && (3 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["mode", "amountMinor", "currency"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _io3 = (input: any, _exceptionable: boolean = true): boolean => "number" === typeof input.capacity && (__typia_transform__isTypeUint32._isTypeUint32(input.capacity) && 1 <= input.capacity) && ("object" === typeof input.pricing && null !== input.pricing && _iu0(input.pricing, true && _exceptionable)) && ("creator" === input.confirmation || "participant" === input.confirmation || "both" === input.confirmation) && ("number" === typeof input.holdDurationSeconds && (__typia_transform__isTypeUint32._isTypeUint32(input.holdDurationSeconds) && 1 <= input.holdDurationSeconds)) && (4 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["capacity", "pricing", "confirmation", "holdDurationSeconds"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _iu0 = (input: any, _exceptionable: boolean = true): any => (() => {
    if ("free" === input.mode)
        return _io1(input, true && _exceptionable);
    else if ("posted" === input.mode)
        return _io2(input, true && _exceptionable);
    else
        return false;
})(); const _iu1 = (input: any, _exceptionable: boolean = true): any => (() => {
    if ("creator" === input.confirmation || "participant" === input.confirmation || "both" === input.confirmation)
        return _io3(input, true && _exceptionable);
    else if ("none" === input.confirmation)
        return _io0(input, true && _exceptionable);
    else
        return false;
})(); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["number" === typeof input.capacity && (__typia_transform__isTypeUint32._isTypeUint32(input.capacity) || _report(_exceptionable, {
        path: _path + ".capacity",
        expected: "number & Type<\"uint32\">",
        value: input.capacity
    })) && (1 <= input.capacity || _report(_exceptionable, {
        path: _path + ".capacity",
        expected: "number & Minimum<1>",
        value: input.capacity
    })) || _report(_exceptionable, {
        path: _path + ".capacity",
        expected: "(number & Type<\"uint32\"> & Minimum<1>)",
        value: input.capacity
    }), ("object" === typeof input.pricing && null !== input.pricing || _report(_exceptionable, {
        path: _path + ".pricing",
        expected: "(FreePricing | PostedPricing)",
        value: input.pricing
    })) && _vu0(input.pricing, _path + ".pricing", true && _exceptionable) || _report(_exceptionable, {
        path: _path + ".pricing",
        expected: "(FreePricing | PostedPricing)",
        value: input.pricing
    }), "none" === input.confirmation || _report(_exceptionable, {
        path: _path + ".confirmation",
        expected: "\"none\"",
        value: input.confirmation
    }), undefined === input.holdDurationSeconds || 0 === input.holdDurationSeconds || _report(_exceptionable, {
        path: _path + ".holdDurationSeconds",
        expected: "(0 | undefined)",
        value: input.holdDurationSeconds
    }), 3 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["capacity", "pricing", "confirmation", "holdDurationSeconds"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const _vo1 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["free" === input.mode || _report(_exceptionable, {
        path: _path + ".mode",
        expected: "\"free\"",
        value: input.mode
    }), 1 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["mode"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const _vo2 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["posted" === input.mode || _report(_exceptionable, {
        path: _path + ".mode",
        expected: "\"posted\"",
        value: input.mode
    }), "number" === typeof input.amountMinor && (__typia_transform__isTypeInt64._isTypeInt64(input.amountMinor) || _report(_exceptionable, {
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
    }), 3 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["mode", "amountMinor", "currency"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const _vo3 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["number" === typeof input.capacity && (__typia_transform__isTypeUint32._isTypeUint32(input.capacity) || _report(_exceptionable, {
        path: _path + ".capacity",
        expected: "number & Type<\"uint32\">",
        value: input.capacity
    })) && (1 <= input.capacity || _report(_exceptionable, {
        path: _path + ".capacity",
        expected: "number & Minimum<1>",
        value: input.capacity
    })) || _report(_exceptionable, {
        path: _path + ".capacity",
        expected: "(number & Type<\"uint32\"> & Minimum<1>)",
        value: input.capacity
    }), ("object" === typeof input.pricing && null !== input.pricing || _report(_exceptionable, {
        path: _path + ".pricing",
        expected: "(FreePricing | PostedPricing)",
        value: input.pricing
    })) && _vu0(input.pricing, _path + ".pricing", true && _exceptionable) || _report(_exceptionable, {
        path: _path + ".pricing",
        expected: "(FreePricing | PostedPricing)",
        value: input.pricing
    }), "creator" === input.confirmation || "participant" === input.confirmation || "both" === input.confirmation || _report(_exceptionable, {
        path: _path + ".confirmation",
        expected: "(\"both\" | \"creator\" | \"participant\")",
        value: input.confirmation
    }), "number" === typeof input.holdDurationSeconds && (__typia_transform__isTypeUint32._isTypeUint32(input.holdDurationSeconds) || _report(_exceptionable, {
        path: _path + ".holdDurationSeconds",
        expected: "number & Type<\"uint32\">",
        value: input.holdDurationSeconds
    })) && (1 <= input.holdDurationSeconds || _report(_exceptionable, {
        path: _path + ".holdDurationSeconds",
        expected: "number & Minimum<1>",
        value: input.holdDurationSeconds
    })) || _report(_exceptionable, {
        path: _path + ".holdDurationSeconds",
        expected: "(number & Type<\"uint32\"> & Minimum<1>)",
        value: input.holdDurationSeconds
    }), 4 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["capacity", "pricing", "confirmation", "holdDurationSeconds"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const _vu0 = (input: any, _path: string, _exceptionable: boolean = true): any => (() => {
    if ("free" === input.mode)
        return _vo1(input, _path, true && _exceptionable);
    else if ("posted" === input.mode)
        return _vo2(input, _path, true && _exceptionable);
    else
        return _report(_exceptionable, {
            path: _path,
            expected: "(FreePricing | PostedPricing)",
            value: input
        });
})(); const _vu1 = (input: any, _path: string, _exceptionable: boolean = true): any => (() => {
    if ("creator" === input.confirmation || "participant" === input.confirmation || "both" === input.confirmation)
        return _vo3(input, _path, true && _exceptionable);
    else if ("none" === input.confirmation)
        return _vo0(input, _path, true && _exceptionable);
    else
        return _report(_exceptionable, {
            path: _path,
            expected: "(DirectClaimConfigWithHold | DirectClaimConfigInputWithoutHold)",
            value: input
        });
})(); const __is = (input: any, _exceptionable: boolean = true): input is DirectClaimConfigInput => "object" === typeof input && null !== input && _iu1(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<DirectClaimConfigInput> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "(DirectClaimConfigInputWithoutHold | DirectClaimConfigWithHold)",
            value: input
        })) && _vu1(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "(DirectClaimConfigInputWithoutHold | DirectClaimConfigWithHold)",
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
export const validateSealedAuctionConfig = (() => { const _io0 = (input: any, _exceptionable: boolean = true): boolean => "string" === typeof input.currency && RegExp("^[A-Z]{3}$").test(input.currency) && (undefined === input.reserveAmountMinor || "number" === typeof input.reserveAmountMinor && (__typia_transform__isTypeInt64._isTypeInt64(input.reserveAmountMinor) && 1 <= input.reserveAmountMinor && input.reserveAmountMinor <= 9007199254740991)) && ("string" === typeof input.closesAt && __typia_transform__isFormatDateTime._isFormatDateTime(input.closesAt)) && ("number" === typeof input.holdDurationSeconds && (__typia_transform__isTypeUint32._isTypeUint32(input.holdDurationSeconds) && 1 <= input.holdDurationSeconds)) && (3 === Object.keys(input).length || Object.keys(input).every((key: any) => {
    if (["currency", "reserveAmountMinor", "closesAt", "holdDurationSeconds"].some((prop: any) => key === prop))
        return true;
    const value = input[key];
    if (undefined === value)
        return true;
    return false;
})); const _vo0 = (input: any, _path: string, _exceptionable: boolean = true): boolean => ["string" === typeof input.currency && (RegExp("^[A-Z]{3}$").test(input.currency) || _report(_exceptionable, {
        path: _path + ".currency",
        expected: "string & Pattern<\"^[A-Z]{3}$\">",
        value: input.currency
    })) || _report(_exceptionable, {
        path: _path + ".currency",
        expected: "(string & Pattern<\"^[A-Z]{3}$\">)",
        value: input.currency
    }), undefined === input.reserveAmountMinor || "number" === typeof input.reserveAmountMinor && (__typia_transform__isTypeInt64._isTypeInt64(input.reserveAmountMinor) || _report(_exceptionable, {
        path: _path + ".reserveAmountMinor",
        expected: "number & Type<\"int64\">",
        value: input.reserveAmountMinor
    })) && (1 <= input.reserveAmountMinor || _report(_exceptionable, {
        path: _path + ".reserveAmountMinor",
        expected: "number & Minimum<1>",
        value: input.reserveAmountMinor
    })) && (input.reserveAmountMinor <= 9007199254740991 || _report(_exceptionable, {
        path: _path + ".reserveAmountMinor",
        expected: "number & Maximum<9007199254740991>",
        value: input.reserveAmountMinor
    })) || _report(_exceptionable, {
        path: _path + ".reserveAmountMinor",
        expected: "((number & Type<\"int64\"> & Minimum<1> & Maximum<9007199254740991>) | undefined)",
        value: input.reserveAmountMinor
    }), "string" === typeof input.closesAt && (__typia_transform__isFormatDateTime._isFormatDateTime(input.closesAt) || _report(_exceptionable, {
        path: _path + ".closesAt",
        expected: "string & Format<\"date-time\">",
        value: input.closesAt
    })) || _report(_exceptionable, {
        path: _path + ".closesAt",
        expected: "(string & Format<\"date-time\">)",
        value: input.closesAt
    }), "number" === typeof input.holdDurationSeconds && (__typia_transform__isTypeUint32._isTypeUint32(input.holdDurationSeconds) || _report(_exceptionable, {
        path: _path + ".holdDurationSeconds",
        expected: "number & Type<\"uint32\">",
        value: input.holdDurationSeconds
    })) && (1 <= input.holdDurationSeconds || _report(_exceptionable, {
        path: _path + ".holdDurationSeconds",
        expected: "number & Minimum<1>",
        value: input.holdDurationSeconds
    })) || _report(_exceptionable, {
        path: _path + ".holdDurationSeconds",
        expected: "(number & Type<\"uint32\"> & Minimum<1>)",
        value: input.holdDurationSeconds
    }), 3 === Object.keys(input).length || (false === _exceptionable || Object.keys(input).map((key: any) => {
        if (["currency", "reserveAmountMinor", "closesAt", "holdDurationSeconds"].some((prop: any) => key === prop))
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
    }).every((flag: boolean) => flag))].every((flag: boolean) => flag); const __is = (input: any, _exceptionable: boolean = true): input is SealedAuctionConfig => "object" === typeof input && null !== input && _io0(input, true); let errors: any; let _report: any; return __typia_transform__createStandardSchema._createStandardSchema((input: any): import("typia").IValidation<SealedAuctionConfig> => {
    if (false === __is(input)) {
        errors = [];
        _report = (__typia_transform__validateReport._validateReport as any)(errors);
        ((input: any, _path: string, _exceptionable: boolean = true) => ("object" === typeof input && null !== input || _report(true, {
            path: _path + "",
            expected: "SealedAuctionConfig",
            value: input
        })) && _vo0(input, _path + "", true) || _report(true, {
            path: _path + "",
            expected: "SealedAuctionConfig",
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
