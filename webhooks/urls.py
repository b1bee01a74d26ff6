from django.urls import path

from webhooks import views

app_name = "webhooks"

urlpatterns = [
    path("<uuid:ws_id>/webhooks/", views.webhook_list, name="list"),
    path("<uuid:ws_id>/webhooks/add", views.webhook_create, name="create"),
    path("<uuid:ws_id>/webhooks/<int:webhook_id>/", views.webhook_detail, name="detail"),
    path("<uuid:ws_id>/webhooks/<int:webhook_id>/change", views.webhook_change, name="change"),
    path("<uuid:ws_id>/webhooks/<int:webhook_id>/rotate-secret", views.webhook_rotate, name="rotate"),
    path("<uuid:ws_id>/webhooks/<int:webhook_id>/delete", views.webhook_delete, name="delete"),
    path(
        "<uuid:ws_id>/webhooks/<int:webhook_id>/deliveries/<int:attempt_id>/redeliver",
        views.webhook_redeliver,
        name="redeliver",
    ),
]
