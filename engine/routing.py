from django.urls import path

from engine.consumers import FamilyAttemptConsumer, PlayConsumer

websocket_urlpatterns = [
    path("ws/play/<int:session_id>/", PlayConsumer.as_asgi()),
    path("ws/family-attempts/<int:attempt_id>/", FamilyAttemptConsumer.as_asgi()),
]
