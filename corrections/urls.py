from django.urls import path

from corrections.views import (
    audit,
    audit_export,
    chain,
    correct,
    history,
    proposed,
    prov,
    review,
    sources,
    suggestions,
    timeline,
)

app_name = "corrections"

urlpatterns = [
    path("w/<uuid:ws_id>/claims/<str:claim_id>/correct", correct.claim_correct, name="correct"),
    path("w/<uuid:ws_id>/claims/<str:claim_id>/correct/apply", correct.claim_correct_apply, name="apply"),
    path("w/<uuid:ws_id>/claims/<str:claim_id>/chain", chain.claim_chain, name="chain"),
    path("w/<uuid:ws_id>/sources/<str:source_id>/revise", sources.source_revise, name="revise"),
    path("w/<uuid:ws_id>/review/", review.review_queue, name="review"),
    path(
        "w/<uuid:ws_id>/suggestions/<str:suggestion_id>/reject",
        suggestions.suggestion_reject,
        name="suggestion_reject",
    ),
    path("w/<uuid:ws_id>/proposed-claims", proposed.proposed_decide, name="proposed_decide"),
    path("w/<uuid:ws_id>/review/acted-on/<str:action_id>", review.action_follow_up, name="follow_up"),
    path("w/<uuid:ws_id>/review/<str:decision_id>/", review.review_decision, name="review_decision"),
    path("w/<uuid:ws_id>/review/<str:decision_id>", review.decision_resolve, name="resolve"),
    path("w/<uuid:ws_id>/corrections/", history.history, name="history"),
    path("w/<uuid:ws_id>/prov", prov.prov_export, name="prov"),
    path("w/<uuid:ws_id>/timeline/", timeline.timeline, name="timeline"),
    path("w/<uuid:ws_id>/diff/", timeline.diff, name="diff"),
    path("w/<uuid:ws_id>/corrections/<str:correction_id>/", history.detail, name="detail"),
    path("audit/", audit.audit, name="audit"),
    path("audit/export.csv", audit_export.audit_export, name="audit_export"),
    path("audit/events/<int:event_id>/", audit.audit_event, name="audit_event"),
    path("audit/prov", prov.audit_prov, name="audit_prov"),
    path("audit/corrections/<uuid:ws_id>/<str:correction_id>/", audit.audit_detail, name="audit_detail"),
]
