from django.urls import path

from claims.views import claims as claim_views
from claims.views import sources as source_views

app_name = "claims"

urlpatterns = [
    path("<uuid:ws_id>/sources/", source_views.source_list, name="sources"),
    path("<uuid:ws_id>/sources/new", source_views.source_new, name="source_new"),
    path("<uuid:ws_id>/sources/<str:source_id>/", source_views.source_detail, name="source"),
    path("<uuid:ws_id>/sources/<str:source_id>/extraction", source_views.source_extraction, name="extraction"),
    path("<uuid:ws_id>/sources/<str:source_id>/extract", source_views.source_extract, name="extract"),
    path("<uuid:ws_id>/sources/<str:source_id>/claims", source_views.claim_add, name="claim_add"),
    path("<uuid:ws_id>/claims/", claim_views.claim_search, name="search"),
    path("<uuid:ws_id>/claims/cards", claim_views.claim_cards, name="cards"),
    path("<uuid:ws_id>/claims/pick", claim_views.claim_pick, name="pick"),
    path("<uuid:ws_id>/claims/derive", claim_views.claim_derive, name="derive"),
    path("<uuid:ws_id>/claims/<str:claim_id>/", claim_views.claim_detail, name="claim"),
]
