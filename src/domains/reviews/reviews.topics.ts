/** The reviews module's events. */
import type { ReviewEvent } from "./reviews.view.js";

declare module "../../platform/bus.js" {
  interface Topics {
    /** a run opened a review (its hits, an alert, KYC to consider) */
    "review.opened": [clientId: string, event: ReviewEvent];
    /** a reviewer's decision was recorded (PENDING_APPROVAL) or took effect (CLOSED) */
    "review.decided": [clientId: string, event: ReviewEvent];
    /** a review was assigned, escalated or given new hits (subscriptions only) */
    "review.updated": [clientId: string, event: { reviewId: string; userId: string; change: string }];
  }
}
