from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("notifications/", views.inbox, name="inbox"),
    path("notifications/read", views.mark_read, name="read"),
    path("notifications/email", views.email_preference, name="email"),
    path("notifications/<int:notification_id>/open", views.open_notification, name="open"),
    path("w/<uuid:ws_id>/watch", views.watch_toggle, name="watch"),
]
