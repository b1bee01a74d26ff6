from django.urls import path

from corrections import views

app_name = "corrections"

urlpatterns = [
    path("w/<uuid:ws_id>/claims/<str:claim_id>/correct", views.claim_correct, name="correct"),
    path("w/<uuid:ws_id>/claims/<str:claim_id>/correct/apply", views.claim_correct_apply, name="apply"),
    path("w/<uuid:ws_id>/claims/<str:claim_id>/chain", views.claim_chain, name="chain"),
    path("w/<uuid:ws_id>/sources/<str:source_id>/revise", views.source_revise, name="revise"),
    path("w/<uuid:ws_id>/review/", views.review_queue, name="review"),
    path("w/<uuid:ws_id>/review/<str:decision_id>/", views.review_decision, name="review_decision"),
    path("w/<uuid:ws_id>/review/<str:decision_id>", views.decision_resolve, name="resolve"),
    path("w/<uuid:ws_id>/corrections/", views.history, name="history"),
    path("w/<uuid:ws_id>/prov", views.prov_export, name="prov"),
    path("w/<uuid:ws_id>/timeline/", views.timeline, name="timeline"),
    path("w/<uuid:ws_id>/diff/", views.diff, name="diff"),
    path("w/<uuid:ws_id>/corrections/<str:correction_id>/", views.detail, name="detail"),
    path("audit/", views.audit, name="audit"),
    path("audit/export.csv", views.audit_export, name="audit_export"),
    path("audit/events/<int:event_id>/", views.audit_event, name="audit_event"),
    path("audit/prov", views.audit_prov, name="audit_prov"),
    path("audit/corrections/<uuid:ws_id>/<str:correction_id>/", views.audit_detail, name="audit_detail"),
]
