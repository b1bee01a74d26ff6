from django.urls import path

from claims import views

app_name = "claims"

urlpatterns = [
    path("<uuid:ws_id>/sources/", views.source_list, name="sources"),
    path("<uuid:ws_id>/sources/new", views.source_new, name="source_new"),
    path("<uuid:ws_id>/sources/<str:source_id>/", views.source_detail, name="source"),
    path("<uuid:ws_id>/sources/<str:source_id>/extraction", views.source_extraction, name="extraction"),
    path("<uuid:ws_id>/sources/<str:source_id>/extract", views.source_extract, name="extract"),
    path("<uuid:ws_id>/sources/<str:source_id>/claims", views.claim_add, name="claim_add"),
    path("<uuid:ws_id>/claims/", views.claim_search, name="search"),
    path("<uuid:ws_id>/claims/cards", views.claim_cards, name="cards"),
    path("<uuid:ws_id>/claims/pick", views.claim_pick, name="pick"),
    path("<uuid:ws_id>/claims/derive", views.claim_derive, name="derive"),
    path("<uuid:ws_id>/claims/<str:claim_id>/", views.claim_detail, name="claim"),
]
