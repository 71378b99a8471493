/**
 * The bytes of a stream's last frame: its data is the wire's StreamEndFrameData, members in the
 * order the service has always written them ({code, message, resumeAfter}), so clients that read
 * them as text see no change.
 */
import { describe, expect, it } from "vitest";
import { endFrame, overflowFrame } from "../../gateway/events/sse-frames.js";

describe("end and overflow frames", () => {
  it("write {code, message, resumeAfter} in that order", () => {
    expect(endFrame("shutting_down", "the service is stopping", 7)).toBe('event: end\ndata: {"code":"shutting_down","message":"the service is stopping","resumeAfter":7}\n\n');
    expect(overflowFrame("too slow", 12)).toBe('event: overflow\ndata: {"code":"subscriber_too_slow","message":"too slow","resumeAfter":12}\n\n');
  });
});
